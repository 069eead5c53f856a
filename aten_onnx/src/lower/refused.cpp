// Core ATen ops refused by design, each with the reason and what the user
// can do. They are registered (not missing): the error names the node and
// module and says why, instead of "no lowering".
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void refuse_training_batch_norm(OpContext& cx) {
  cx.unsupported(
      "batch norm in training mode (batch statistics, running-stat updates): the model was exported "
      "in train mode - call model.eval() before torch.export");
}
MX_ATEN_LOWER(refuse_training_batch_norm, "aten._native_batch_norm_legit.default",
              "aten._native_batch_norm_legit_functional");

}  // namespace
}  // namespace mx::aten_onnx
