// scaled_dot_product_attention (TRAINING dialect) and core ATen's
// _scaled_dot_product_flash_attention_for_cpu / _scaled_dot_product_efficient_attention
// (the decomposition of sdpa on CPU; the extra outputs are statistics an
// eval graph does not read). Shared pattern: emit_sdpa.
#include <cmath>

#include "lower_ctx.hpp"

namespace mxte {
namespace {

void lower_sdpa(LowerCtx& cx) {
  const int32_t dt = cx.out_dtype();
  const auto& q = cx.value_of("query").shape;
  if (q.size() != 4) cx.unsupported("scaled_dot_product_attention on non 4-D inputs");
  if (!q[3].is_static) cx.unsupported("scaled_dot_product_attention with a dynamic head dim");
  if (cx.bool_arg("enable_gqa", false)) cx.unsupported("scaled_dot_product_attention with enable_gqa");
  const double scale = cx.has("scale") ? cx.float_arg("scale") : 1.0 / std::sqrt(static_cast<double>(q[3].value));
  std::string mask;
  int32_t mask_type = 0;
  const char* mask_arg = cx.arg("attn_mask") ? "attn_mask" : "attn_bias";
  if (cx.has(mask_arg)) {
    mask = cx.tensor(mask_arg);
    mask_type = cx.dtype_of(mask_arg);
  }
  cx.out(0, mx::aten_onnx::emit_sdpa(cx, cx.tensor("query"), cx.tensor("key"), cx.tensor("value"), mask, mask_type,
                                     cx.bool_arg("is_causal", false), scale, dt));
}
MXTE_LOWER(lower_sdpa, "aten.scaled_dot_product_attention", "aten._scaled_dot_product_flash_attention_for_cpu",
           "aten._scaled_dot_product_efficient_attention", "aten._scaled_dot_product_attention_math");

}  // namespace
}  // namespace mxte
