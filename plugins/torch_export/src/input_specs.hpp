// The ONNX inputs of a program: one per user input, typed from the
// program (dtype, static dims, symbolic dims as dim_param named after the
// program's symbol) unless the user gave a spec ("input_ids:int64[batch=2,
// seq=16]"), which is checked against the program: the name must be an
// input, the dtype and rank equal, a static dim equal, a dynamic dim within
// the symbol's range_constraints; a named spec dim names the dim_param.
#pragma once
#include "mx/onnx_proto.hpp"

#include <string>
#include <vector>

#include "program.hpp"

namespace mx::torch_export {

// Adds the graph inputs to `graph`; returns their names in order.
std::vector<std::string> add_graph_inputs(const Program& program, const std::vector<std::string>& specs,
                                          onnx::GraphProto& graph);

}  // namespace mx::torch_export
