// Every lowering writes a node in one form, opset 17's; the emitter turns it
// into the form the export's opset defines, here and nowhere else:
//   18+  ReduceMean/Max/Min/Prod/LogSumExp/L1/L2/LogSum/SumSquare take their
//        axes as an input, not an attribute
//   18+  Split without split sizes states num_outputs
//   20+  GridSample's modes are "linear"/"cubic" (were "bilinear"/"bicubic")
//   20+  DFT takes its axis as an input
// Every other op the lowerings emit keeps its form up to opset 28 (its
// newer versions add types only); the op conformance suite checks each
// lowering at the lowest, the default and the newest opset.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mx/aten_onnx/onnx_emitter.hpp"

namespace mx::aten_onnx {

struct NodeForm {
  std::vector<std::string> inputs;
  std::vector<onnx::AttributeProto> attrs;
};

// Throws OpsetTooLow when `op` (default domain), or one of `attrs`, does
// not exist at `opset`, naming the opset that has it: a clear refusal
// instead of the checker's "No Op registered" after the whole lowering.
struct OpsetTooLow : std::runtime_error {
  using std::runtime_error::runtime_error;
};
void require_in_opset(const std::string& op, const std::vector<onnx::AttributeProto>& attrs, int opset);

// The node's form at e.opset, or nullopt when it is the opset-17 form
// unchanged. May emit constants (the axes of a reduction) into `e`.
std::optional<NodeForm> opset_form(OnnxEmitter& e, const std::string& op,
                                   const std::vector<std::string>& inputs,
                                   const std::vector<onnx::AttributeProto>& attrs, size_t n_out);

}  // namespace mx::aten_onnx
