#include "shape_rules.hpp"

#include <string>
#include <vector>

namespace mx::torchscript {
namespace {

at::Tensor meta_like(const at::Tensor& t, at::IntArrayRef sizes) {
  return at::empty(sizes, t.options().device(at::kMeta));
}

// An int list argument of n entries (a single value repeats, as in ATen).
std::vector<int64_t> per_dim(const c10::IValue& v, size_t n, int64_t dflt) {
  std::vector<int64_t> r;
  if (v.isIntList()) r = v.toIntVector();
  else if (v.isInt()) r = {v.toInt()};
  if (r.empty()) r = {dflt};
  if (r.size() == 1) r.resize(n, r[0]);
  return r;
}

struct ConvArgs {
  c10::IValue stride, padding, dilation, output_padding;
  bool transposed = false;
  int64_t groups = 1;
};

// ATen's output size rule for (transposed) convolution; undefined when the
// shapes do not fit (the caller then lets the CPU kernel say why).
at::Tensor conv_output(const at::Tensor& x, const at::Tensor& w, const ConvArgs& a) {
  if (w.dim() < 3 || a.groups < 1) return {};
  const size_t n = static_cast<size_t>(w.dim() - 2);
  const bool batched = static_cast<size_t>(x.dim()) == n + 2;
  if (!batched && static_cast<size_t>(x.dim()) != n + 1) return {};
  const int64_t channels = x.size(batched ? 1 : 0);
  if (channels != (a.transposed ? w.size(0) : w.size(1) * a.groups)) return {};
  const auto stride = per_dim(a.stride, n, 1), dil = per_dim(a.dilation, n, 1);
  const auto opad = per_dim(a.output_padding, n, 0);
  std::vector<int64_t> pad;
  bool same = false;
  if (a.padding.isString()) same = a.padding.toStringRef() == "same";
  else pad = per_dim(a.padding, n, 0);
  if (pad.empty()) pad.assign(n, 0);
  std::vector<int64_t> out;
  if (batched) out.push_back(x.size(0));
  out.push_back(a.transposed ? w.size(1) * a.groups : w.size(0));
  const int64_t first = batched ? 2 : 1;
  for (size_t k = 0; k < n; ++k) {
    const int64_t in = x.size(first + static_cast<int64_t>(k)), kk = w.size(2 + static_cast<int64_t>(k));
    if (same) out.push_back(in);
    else if (a.transposed) out.push_back((in - 1) * stride[k] - 2 * pad[k] + dil[k] * (kk - 1) + opad[k] + 1);
    else out.push_back((in + 2 * pad[k] - dil[k] * (kk - 1) - 1) / stride[k] + 1);
    if (out.back() <= 0 || stride[k] <= 0) return {};
  }
  return meta_like(x, out);
}

// (input, weight, bias, ...) by overload; false for non-convolutions.
bool conv_rule(const std::string& kind, const torch::jit::Stack& s, at::Tensor& out) {
  ConvArgs a;
  if (kind == "aten::_convolution" || kind == "aten::convolution") {
    a.stride = s.at(3);
    a.padding = s.at(4);
    a.dilation = s.at(5);
    a.transposed = s.at(6).toBool();
    a.output_padding = s.at(7);
    a.groups = s.at(8).toInt();
  } else if (kind == "aten::conv1d" || kind == "aten::conv2d" || kind == "aten::conv3d") {
    a.stride = s.at(3);
    a.padding = s.at(4);
    a.dilation = s.at(5);
    a.groups = s.at(6).toInt();
  } else if (kind == "aten::conv_transpose1d" || kind == "aten::conv_transpose2d" ||
             kind == "aten::conv_transpose3d") {
    a.transposed = true;
    a.stride = s.at(3);
    a.padding = s.at(4);
    a.output_padding = s.at(5);
    a.groups = s.at(6).toInt();
    a.dilation = s.at(7);
  } else {
    return false;
  }
  out = conv_output(s.at(0).toTensor(), s.at(1).toTensor(), a);
  return out.defined();
}

// (query, key, value, embed_dim, num_head, qkv_w, qkv_b, proj_w, proj_b,
//  mask, need_weights, average_attn_weights, mask_type) -> (out, weights)
void native_mha(torch::jit::Stack& stack) {
  const at::Tensor q = stack.at(0).toTensor(), k = stack.at(1).toTensor();
  const int64_t heads = stack.at(4).toInt();
  const bool need = stack.size() > 10 && stack.at(10).isBool() ? stack.at(10).toBool() : true;
  const bool avg = stack.size() > 11 && stack.at(11).isBool() ? stack.at(11).toBool() : true;
  at::Tensor out = meta_like(q, q.sizes());
  at::Tensor w;
  if (!need) {
    w = at::empty({0}, q.options().device(at::kCPU));  // ATen's empty placeholder
  } else {
    std::vector<int64_t> s(q.sizes().begin(), q.sizes().end() - 1);  // [B, L]
    if (!avg) s.insert(s.end() - 1, heads);
    s.push_back(k.size(-2));
    w = meta_like(q, s);
  }
  stack.clear();
  stack.emplace_back(out);
  stack.emplace_back(w);
}

// Out-of-place element-wise ops (and flip/roll) found without a meta kernel
// in LibTorch 1.13 by the test suite: output = input's shape and dtype.
bool shape_preserving(const std::string& kind) {
  static const char* const ops[] = {"aten::relu",        "aten::abs",       "aten::hardtanh",
                                    "aten::relu6",       "aten::hardswish", "aten::prelu",
                                    "aten::log_sigmoid", "aten::flip",      "aten::roll"};
  for (const char* op : ops)
    if (kind == op) return true;
  return false;
}

int64_t numel_or(const c10::IValue& v, int64_t dflt) {
  return v.isTensor() && v.toTensor().defined() ? v.toTensor().numel() : dflt;
}

// A normalisation whose parameters fit its input (else the CPU kernel
// reports the mismatch, as before).
bool norm_fits(const std::string& kind, const torch::jit::Stack& s) {
  if (s.empty() || !s[0].isTensor()) return false;
  const at::Tensor x = s[0].toTensor();
  if (kind == "aten::layer_norm") {  // (input, normalized_shape, weight, bias, eps, cudnn)
    const auto shape = s.at(1).toIntVector();
    if (shape.size() > static_cast<size_t>(x.dim())) return false;
    int64_t numel = 1;
    for (size_t k = 0; k < shape.size(); ++k) {
      if (x.size(x.dim() - static_cast<int64_t>(shape.size()) + static_cast<int64_t>(k)) != shape[k])
        return false;
      numel *= shape[k];
    }
    return numel_or(s.at(2), numel) == numel && numel_or(s.at(3), numel) == numel;
  }
  if (kind == "aten::batch_norm" || kind == "aten::instance_norm") {  // (input, weight, bias, mean, var, ...)
    if (x.dim() < 2) return false;
    const int64_t c = x.size(1);
    for (size_t k = 1; k <= 4; ++k)
      if (numel_or(s.at(k), c) != c) return false;
    return true;
  }
  if (kind == "aten::group_norm") {  // (input, num_groups, weight, bias, eps, cudnn)
    if (x.dim() < 2 || s.at(1).toInt() <= 0 || x.size(1) % s.at(1).toInt() != 0) return false;
    return numel_or(s.at(2), x.size(1)) == x.size(1) && numel_or(s.at(3), x.size(1)) == x.size(1);
  }
  return false;
}

// aten::rnn_relu / rnn_tanh, the `.input` overload: (input, hx, params,
// has_biases, num_layers, dropout, train, bidirectional, batch_first) ->
// (output, hy). rnn_relu's inner relu has no meta kernel in LibTorch 1.13,
// and a stand-in run costs the whole layer's compute. Output: the input's
// sequence and batch dims with D * hidden features; hy: hx's shape. The
// shapes are checked against the parameters (weight_ih_l0 is [H, input]),
// so a mismatch still gets the CPU kernel's message.
bool recurrent_rule(const std::string& kind, torch::jit::Stack& s) {
  if (kind != "aten::rnn_relu" && kind != "aten::rnn_tanh") return false;
  if (s.size() != 9 || !s[0].isTensor() || !s[1].isTensor() || !s[2].isTensorList() || !s[4].isInt() ||
      !s[7].isBool() || !s[8].isBool())
    return false;  // the packed `.data` overload: left to the kernel
  const at::Tensor x = s[0].toTensor(), hx = s[1].toTensor();
  const auto params = s[2].toTensorVector();
  const int64_t layers = s[4].toInt(), dirs = s[7].toBool() ? 2 : 1;
  const bool batch_first = s[8].toBool();
  if ((x.dim() != 3 && x.dim() != 2) || hx.dim() != x.dim() || layers < 1) return false;
  const int64_t hidden = hx.size(-1);
  if (hx.size(0) != layers * dirs || params.empty() || params[0].dim() != 2 || params[0].size(0) != hidden ||
      params[0].size(1) != x.size(-1))
    return false;
  if (x.dim() == 3 && hx.size(1) != x.size(batch_first ? 0 : 1)) return false;
  std::vector<int64_t> out(x.sizes().begin(), x.sizes().end());
  out.back() = dirs * hidden;
  at::Tensor y = meta_like(x, out), hy = meta_like(hx, hx.sizes());
  s.clear();
  s.emplace_back(y);
  s.emplace_back(hy);
  return true;
}

}  // namespace

bool apply_shape_rule(const torch::jit::Node* n, torch::jit::Stack& stack) {
  const std::string kind = n->kind().toQualString();
  at::Tensor out;
  if (conv_rule(kind, stack, out)) {
    stack.clear();
    stack.emplace_back(out);
    return true;
  }
  // Normalisations, the encoder-layer fast path and the element-wise ops
  // below keep their input's shape and dtype.
  if (norm_fits(kind, stack) || kind == "aten::_transformer_encoder_layer_fwd" || shape_preserving(kind)) {
    const at::Tensor x = stack.at(0).toTensor();
    at::Tensor y = meta_like(x, x.sizes());
    // the modulus of a complex value is real
    if (kind == "aten::abs" && x.is_complex()) y = y.to(c10::toRealValueType(x.scalar_type()));
    stack.clear();
    stack.emplace_back(y);
    return true;
  }
  if (kind == "aten::embedding" && stack.size() >= 2 && stack[0].isTensor() && stack[1].isTensor()) {
    // (weight [N, D], indices) -> indices.shape + [D]
    const at::Tensor w = stack[0].toTensor(), ids = stack[1].toTensor();
    if (w.dim() != 2 || !at::isIntegralType(ids.scalar_type(), false)) return false;
    std::vector<int64_t> s(ids.sizes().begin(), ids.sizes().end());
    s.push_back(w.size(1));
    stack.clear();
    stack.emplace_back(meta_like(w, s));
    return true;
  }
  if (kind == "aten::_native_multi_head_attention") {
    native_mha(stack);
    return true;
  }
  return recurrent_rule(kind, stack);
}

}  // namespace mx::torchscript
