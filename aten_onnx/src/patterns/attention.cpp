// Scaled dot-product attention, decomposed as ATen's math kernel does
// (aten/src/ATen/native/transformers/attention.cpp): q is scaled before
// the product, masks are added to the scores, softmax over the keys.
#include <limits>

#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {

std::pair<std::string, std::string> emit_attention(OnnxEmitter& e, const std::string& q, const std::string& k,
                                                   const std::string& v, const std::string& mask_add,
                                                   double scale, int32_t dt) {
  std::string qs = e.emit1("Mul", {q, e.cscalar(scale, dt)});
  std::string kt = e.emit1("Transpose", {k}, {attr("perm", std::vector<int64_t>{0, 1, 3, 2})});
  std::string s = e.emit1("MatMul", {qs, kt});
  if (!mask_add.empty()) s = e.emit1("Add", {s, mask_add});
  std::string p = e.emit1("Softmax", {s}, {attr("axis", int64_t{-1})});
  return {e.emit1("MatMul", {p, v}), p};
}

namespace {

// ONNX Attention (opset 23) on [B, heads, L, D]: the same boolean (true =
// attend) or additive mask, the causal flag and the scale; fewer key/value
// heads than query heads (GQA) are Attention's own.
std::string emit_fused_attention(OnnxEmitter& e, const std::string& q, const std::string& k,
                                 const std::string& v, const std::string& attn_mask, int32_t mask_dtype,
                                 bool is_causal, double scale, int32_t dt) {
  std::vector<std::string> ins{q, k, v};
  if (!attn_mask.empty())
    ins.push_back(mask_dtype == onnx::TensorProto::BOOL || mask_dtype == dt
                      ? attn_mask
                      : e.cast(attn_mask, mask_dtype, dt));
  return e.emit1("Attention", ins,
                 {attr("is_causal", int64_t{is_causal ? 1 : 0}), attr("scale", static_cast<float>(scale))});
}

}  // namespace

std::string emit_sdpa(OnnxEmitter& e, const std::string& q, const std::string& k, const std::string& v,
                      const std::string& attn_mask, int32_t mask_dtype, bool is_causal, double scale,
                      int32_t dt) {
  if (e.fused_ops && e.opset >= 23)
    return emit_fused_attention(e, q, k, v, attn_mask, mask_dtype, is_causal, scale, dt);
  const double neg_inf = -std::numeric_limits<double>::infinity();
  std::string mask;
  if (!attn_mask.empty()) {
    mask = mask_dtype == onnx::TensorProto::BOOL
               ? e.emit1("Where", {attn_mask, e.cscalar(0, dt), e.cscalar(neg_inf, dt)})
               : e.cast(attn_mask, mask_dtype, dt);
  }
  if (is_causal) {  // key index <= query index
    std::string qi = e.emit1("Range", {e.ci64s(0), e.dim_size(q, 2), e.ci64s(1)});
    std::string ki = e.emit1("Range", {e.ci64s(0), e.dim_size(k, 2), e.ci64s(1)});
    std::string ok = e.emit1("LessOrEqual", {e.unsqueeze(ki, {0}), e.unsqueeze(qi, {1})});
    std::string cm = e.emit1("Where", {ok, e.cscalar(0, dt), e.cscalar(neg_inf, dt)});
    mask = mask.empty() ? cm : e.emit1("Add", {mask, cm});
  }
  return emit_attention(e, q, k, v, mask, scale, dt).first;
}

}  // namespace mx::aten_onnx
