// scaled_dot_product_attention (TRAINING dialect) and core ATen's
// _scaled_dot_product_flash_attention_for_cpu / _scaled_dot_product_efficient_attention
// (the decomposition of sdpa on CPU; the extra outputs are statistics an
// eval graph does not read). Shared pattern: emit_sdpa.
#include <cmath>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

// enable_gqa: each key/value head serves H / H_kv query heads, as ATen's
// repeat_interleave over dim 1 - [B, Hkv, S, D] -> [B, Hkv, r, S, D] -> [B, H, S, D].
std::string repeat_kv_heads(OpContext& cx, const std::string& kv, int64_t repeats) {
  if (repeats == 1) return kv;
  const std::string shape = cx.shape_of(kv);
  auto at = [&](int64_t k) { return cx.emit1("Slice", {shape, cx.ci64({k}), cx.ci64({k + 1})}); };
  const std::string five =
      cx.emit1("Concat", {at(0), at(1), cx.ci64({repeats}), at(2), at(3)}, {attr("axis", int64_t{0})});
  const std::string heads = cx.emit1("Mul", {at(1), cx.ci64({repeats})});
  const std::string four = cx.emit1("Concat", {at(0), heads, at(2), at(3)}, {attr("axis", int64_t{0})});
  return cx.emit1("Reshape", {cx.emit1("Expand", {cx.unsqueeze(kv, {2}), five}), four});
}

// Query/key/value of rank 3 ([B, L, E], no head dim) run as one head.
void lower_sdpa(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const auto& q = cx.value_of("query").shape;
  const int64_t r = static_cast<int64_t>(q.size());
  if (r != 4 && r != 3)
    cx.unsupported("scaled_dot_product_attention on inputs of rank " + std::to_string(r) +
                   " (3 or 4 are lowered)");
  std::string query = cx.tensor("query"), key = cx.tensor("key"), value = cx.tensor("value");
  double scale = 1.0;
  if (cx.has("scale")) {
    scale = cx.float_arg("scale");
  } else if (q[r - 1].is_static) {
    scale = 1.0 / std::sqrt(static_cast<double>(q[r - 1].value));
  } else {  // a dynamic head dim: the query scaled by 1/sqrt(E) read at run time
    const std::string e = cx.cast(cx.dim_size(query, r - 1), onnx::TensorProto::INT64, dt);
    query = cx.emit1("Div", {query, cx.emit1("Sqrt", {e})});
  }
  std::string mask;
  int32_t mask_type = 0;
  const char* mask_arg = cx.has("attn_mask") ? "attn_mask" : "attn_bias";
  if (cx.has(mask_arg)) {
    mask = cx.tensor(mask_arg);
    mask_type = cx.dtype_of(mask_arg);
    if (r == 3 && cx.rank_of(mask_arg) == 3) mask = cx.unsqueeze(mask, {1});
  }
  if (r == 3) {
    query = cx.unsqueeze(query, {1});
    key = cx.unsqueeze(key, {1});
    value = cx.unsqueeze(value, {1});
  }
  if (cx.bool_arg("enable_gqa", false)) {
    const auto& k = cx.value_of("key").shape;
    if (r != 4 || !q[1].is_static || !k[1].is_static || k[1].value == 0 || q[1].value % k[1].value)
      cx.unsupported("enable_gqa without static head counts that divide");
    key = repeat_kv_heads(cx, key, q[1].value / k[1].value);
    value = repeat_kv_heads(cx, value, q[1].value / k[1].value);
  }
  std::string out = mx::aten_onnx::emit_sdpa(cx, query, key, value, mask, mask_type,
                                             cx.bool_arg("is_causal", false), scale, dt);
  cx.out(0, r == 3 ? cx.squeeze(out, {1}) : out);
}
MX_ATEN_LOWER(lower_sdpa, "aten.scaled_dot_product_attention",
              "aten._scaled_dot_product_flash_attention_for_cpu",
              "aten._scaled_dot_product_efficient_attention", "aten._scaled_dot_product_attention_math");

}  // namespace
}  // namespace mx::aten_onnx
