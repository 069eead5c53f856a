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

// ONNX Resize's antialias (opset 18) is another filter than ATen's: ONNX
// Runtime 1.31 differs from eager PyTorch by up to 14% (relative) on a 2x
// bilinear downscale (tests/fixtures/ops upsample_*_antialias).
void refuse_antialias(OpContext& cx) {
  cx.unsupported(
      "interpolate with antialias=True: ONNX Resize's antialias filter does not reproduce ATen's "
      "(up to 14% apart in ONNX Runtime); resize without antialias, or blur then resize");
}
MX_ATEN_LOWER(refuse_antialias, "aten._upsample_bilinear2d_aa", "aten._upsample_bicubic2d_aa");

void refuse_erfinv(OpContext& cx) {
  cx.unsupported("erfinv has no ONNX operator");
}
MX_ATEN_LOWER(refuse_erfinv, "aten.erfinv");

}  // namespace
}  // namespace mx::aten_onnx
