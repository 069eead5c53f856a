// Parameters reach their compute node directly or through a short chain of
// nodes that only reshape or re-encode them: Transpose (a Linear's weight
// after constant folding is off), Cast (mixed precision), DequantizeLinear
// (QDQ quantized models), Identity, Reshape, Unsqueeze, Squeeze, Flatten.
// Their other inputs (shape, axes, scale, zero point) are constants.
//
// This pass finds those chain nodes and, for every value in the graph, the
// parameters that flow into it through chains only. A node of a pass-through
// type counts as a chain node only when ALL its inputs are static
// (initializers, Constant outputs or other chain outputs): `Reshape(x, shape)`
// on an activation is real computation, and it would otherwise drag the
// parameter's module forward into the next layer.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "request_graph.hpp"

namespace mx::usage {

struct ParameterFlow {
  // value name -> initializer names (parameters only) that reach it directly
  // or through chain nodes. Initializers map to themselves.
  std::unordered_map<std::string, std::vector<std::string>> origins;
  std::vector<bool> is_chain;     // per node: a pass-through node on static data
  std::vector<bool> is_constant;  // per node: a Constant-like node (no inputs)
};

bool is_pass_through(const std::string& op_type);

// Needs no particular node order: chains are resolved by a worklist, so a
// graph that is not topologically sorted is handled too.
ParameterFlow trace_parameter_flow(const GraphView& graph);

}  // namespace mx::usage
