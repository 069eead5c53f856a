// Attention: PyTorch's fused fast-path ops (eval + no_grad) that TorchScript
// files of nn.MultiheadAttention / nn.TransformerEncoderLayer hold:
// _native_multi_head_attention and _transformer_encoder_layer_fwd,
// decomposed following ATen
// (aten/src/ATen/native/transformers/attention.cpp, transformer.cpp).
#include <cmath>
#include <limits>

#include "ctx.hpp"

namespace mx::torchscript {
namespace {

// [B, L, E] -> [B, H, L, D]
std::string heads(Ctx& cx, const std::string& x, int64_t h, int64_t d) {
  std::string r = cx.emit1("Reshape", {x, cx.ci64({0, 0, h, d})});
  return cx.transpose(r, {0, 2, 1, 3});
}
// [B, H, L, D] -> [B, L, E]
std::string merge(Ctx& cx, const std::string& x, int64_t e) {
  std::string t = cx.transpose(x, {0, 2, 1, 3});
  return cx.emit1("Reshape", {t, cx.ci64({0, 0, e})});
}

// Boolean mask (true = masked out) -> additive mask broadcastable to [B,H,L,S].
// mask_type 0: [L, S] attention mask, 1: [B, S] key padding mask, 2: [B,H,L,S].
std::string additive_mask(Ctx& cx, size_t idx, int64_t mask_type, at::ScalarType dt) {
  if (idx >= cx.n_in() || cx.is_none(idx)) return "";
  auto m = cx.ex_t(idx);
  std::string x = cx.tensor(idx);
  if (m.scalar_type() == at::kBool) {
    x = cx.emit1("Where", {x, cx.cscalar(-std::numeric_limits<double>::infinity(), dt), cx.cscalar(0, dt)});
  } else {
    x = cx.cast(x, onnx_type_of(m.scalar_type()), onnx_type_of(dt));
  }
  if (m.dim() == 2 && mask_type == 1) return cx.unsqueeze(x, {1, 2});
  if (m.dim() == 2) return cx.unsqueeze(x, {0, 1});
  if (m.dim() == 3) return cx.unsqueeze(x, {1});
  return x;
}

struct Mha {
  std::string out, weights;
};

// q/k/v: [B, L, E]; returns projected output [B, L, E] and probabilities [B,H,L,S]
Mha native_mha(Ctx& cx, const std::string& q, const std::string& k, const std::string& v, int64_t e,
               int64_t h, const std::string& qkv_w, const std::string& qkv_b, const std::string& proj_w,
               const std::string& proj_b, const std::string& mask, at::ScalarType dt) {
  int64_t d = e / h;
  std::string qp, kp, vp;
  if (q == k && k == v) {  // self-attention: one fused projection, then split
    std::string qkv = cx.emit1("Add", {cx.emit1("MatMul", {q, cx.transpose(qkv_w, {1, 0})}), qkv_b});
    auto parts = cx.emit("Split", {qkv, cx.ci64({e, e, e})}, {attr("axis", int64_t{-1})}, 3);
    qp = parts[0];
    kp = parts[1];
    vp = parts[2];
  } else {
    auto ws = cx.emit("Split", {qkv_w, cx.ci64({e, e, e})}, {attr("axis", int64_t{0})}, 3);
    auto bs = cx.emit("Split", {qkv_b, cx.ci64({e, e, e})}, {attr("axis", int64_t{0})}, 3);
    qp = cx.emit1("Add", {cx.emit1("MatMul", {q, cx.transpose(ws[0], {1, 0})}), bs[0]});
    kp = cx.emit1("Add", {cx.emit1("MatMul", {k, cx.transpose(ws[1], {1, 0})}), bs[1]});
    vp = cx.emit1("Add", {cx.emit1("MatMul", {v, cx.transpose(ws[2], {1, 0})}), bs[2]});
  }
  auto att = emit_attention(cx, heads(cx, qp, h, d), heads(cx, kp, h, d), heads(cx, vp, h, d), mask,
                            1.0 / std::sqrt(static_cast<double>(d)), onnx_type_of(dt));
  std::string o = emit_linear(cx, merge(cx, att.first, e), 3, proj_w, proj_b);
  return {o, att.second};
}

void lower_native_mha(Ctx& cx, const tj::Node*) {
  // _native_multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
  //   proj_weight, proj_bias, mask=None, need_weights=True, average_attn_weights=True, mask_type=None)
  auto dt = cx.out_st(0);
  if (cx.rank(0) != 3) cx.unsupported("_native_multi_head_attention on unbatched input");
  int64_t mask_type = cx.n_in() > 12 && !cx.is_none(12) ? cx.arg_int(12) : 1;
  std::string mask = additive_mask(cx, 9, mask_type, dt);
  auto r = native_mha(cx, cx.tensor(0), cx.tensor(1), cx.tensor(2), cx.arg_int(3), cx.arg_int(4),
                      cx.tensor(5), cx.tensor(6), cx.tensor(7), cx.tensor(8), mask, dt);
  cx.out(0, r.out);
  bool need = cx.n_in() > 10 && cx.arg_bool(10);
  if (!need) {
    auto v = std::make_shared<Val>();
    v->iv = cx.ex_out[1];
    v->is_static = true;  // empty tensor in ATen
    cx.out_val(1, v);
    return;
  }
  bool avg = cx.n_in() > 11 && cx.arg_bool(11);
  cx.out(1, avg ? cx.emit1("ReduceMean", {r.weights},
                           {attr("axes", std::vector<int64_t>{1}), attr("keepdims", int64_t{0})})
                : r.weights);
}
MXTS_LOWER(lower_native_mha, "aten::_native_multi_head_attention");

void lower_encoder_layer(Ctx& cx, const tj::Node*) {
  // _transformer_encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight,
  //   proj_bias, use_gelu, norm_first, eps, norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2,
  //   ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2, mask=None, mask_type=None)
  auto dt = cx.out_st();
  if (cx.rank(0) != 3) cx.unsupported("_transformer_encoder_layer_fwd on unbatched / nested input");
  int64_t e = cx.arg_int(1), h = cx.arg_int(2);
  bool gelu = cx.arg_bool(7), norm_first = cx.arg_bool(8);
  double eps = cx.arg_double(9);
  int64_t mask_type = cx.n_in() > 19 && !cx.is_none(19) ? cx.arg_int(19) : 1;
  std::string mask = additive_mask(cx, 18, mask_type, dt);
  std::string src = cx.tensor(0);
  auto ln = [&](const std::string& x, size_t wi) {
    return emit_layer_norm(cx, x, 3, 1, cx.tensor(wi), cx.tensor(wi + 1), eps, onnx_type_of(dt));
  };
  auto ffn = [&](const std::string& x) {
    std::string y = emit_linear(cx, x, 3, cx.tensor(14), cx.tensor(15));
    y = gelu ? emit_gelu(cx, y, "none", onnx_type_of(dt)) : cx.emit1("Relu", {y});
    return emit_linear(cx, y, 3, cx.tensor(16), cx.tensor(17));
  };
  std::string x = norm_first ? ln(src, 10) : src;
  auto a = native_mha(cx, x, x, x, e, h, cx.tensor(3), cx.tensor(4), cx.tensor(5), cx.tensor(6), mask, dt);
  std::string out;
  if (norm_first) {
    std::string r1 = cx.emit1("Add", {src, a.out});
    out = cx.emit1("Add", {r1, ffn(ln(r1, 12))});
  } else {
    std::string r1 = ln(cx.emit1("Add", {src, a.out}), 10);
    out = ln(cx.emit1("Add", {r1, ffn(r1)}), 12);
  }
  cx.out(0, out);
}
MXTS_LOWER(lower_encoder_layer, "aten::_transformer_encoder_layer_fwd");

}  // namespace
}  // namespace mx::torchscript
