// Core ATen ops refused by design, each with the reason and what the user
// can do. They are registered (not missing): the error names the node and
// module and says why, instead of "no lowering".
#include "lower_ctx.hpp"

namespace mxte {
namespace {

void refuse_training_batch_norm(LowerCtx& cx) {
  cx.unsupported("batch norm in training mode (batch statistics, running-stat updates): the model was exported "
                 "in train mode - call model.eval() before torch.export");
}
MXTE_LOWER(refuse_training_batch_norm, "aten._native_batch_norm_legit.default", "aten._native_batch_norm_legit_functional");

// ONNX Resize's antialias (opset 18) is another filter than ATen's: ONNX
// Runtime 1.31 differs from eager PyTorch by up to 14% (relative) on a 2x
// bilinear downscale (tests/fixtures/ops upsample_*_antialias).
void refuse_antialias(LowerCtx& cx) {
  cx.unsupported("interpolate with antialias=True: ONNX Resize's antialias filter does not reproduce ATen's "
                 "(up to 14% apart in ONNX Runtime); resize without antialias, or blur then resize");
}
MXTE_LOWER(refuse_antialias, "aten._upsample_bilinear2d_aa", "aten._upsample_bicubic2d_aa");

void refuse_erfinv(LowerCtx& cx) { cx.unsupported("erfinv has no ONNX operator"); }
MXTE_LOWER(refuse_erfinv, "aten.erfinv");

}  // namespace
}  // namespace mxte
