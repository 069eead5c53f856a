// Convolutions (conv1d/2d/3d, _convolution incl. transposed) and pooling.
#include "ctx.hpp"  // the Conv/pool patterns: aten_onnx/src/patterns/conv_pool.cpp

namespace mx::torchscript {
namespace {

// Binds the node's output to the shared Conv/ConvTranspose pattern.
void conv_out(Ctx& cx, const std::string& x, const std::string& w, const std::string& b,
              std::vector<int64_t> stride, std::vector<int64_t> pads, std::vector<int64_t> dil,
              int64_t groups, bool transposed, std::vector<int64_t> out_pad) {
  cx.out(0, emit_conv(cx, x, w, b, ConvParams{stride, pads, dil, groups, transposed, out_pad}));
}

void lower_convolution(Ctx& cx, const tj::Node*) {
  // _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, ...)
  size_t n = cx.ex_t(1).dim() - 2;
  std::string b = cx.is_none(2) ? "" : cx.tensor(2);
  bool tr = cx.arg_bool(6);
  conv_out(cx, cx.tensor(0), cx.tensor(1), b, expand_to(cx.arg_int_list(3), n),
           symmetric_pads(expand_to(cx.arg_int_list(4), n)), expand_to(cx.arg_int_list(5), n), cx.arg_int(8),
           tr, tr ? expand_to(cx.arg_int_list(7), n) : std::vector<int64_t>{});
}
MXTS_LOWER(lower_convolution, "aten::_convolution");

void lower_convnd(Ctx& cx, const tj::Node*) {
  // conv2d(input, weight, bias, stride, padding (ints or 'same'/'valid'), dilation, groups)
  auto w = cx.ex_t(1);
  size_t n = w.dim() - 2;
  std::string b = cx.is_none(2) ? "" : cx.tensor(2);
  auto stride = expand_to(cx.arg_int_list(3), n), dil = expand_to(cx.arg_int_list(5), n);
  std::vector<int64_t> pads;
  if (cx.in(4)->iv.isString()) {
    std::string mode = cx.arg_string(4);
    std::vector<int64_t> lo(n, 0), hi(n, 0);
    if (mode == "same") {
      for (size_t k = 0; k < n; ++k) {
        int64_t total = dil[k] * (w.size(2 + k) - 1);
        lo[k] = total / 2;
        hi[k] = total - lo[k];
      }
    }
    pads = lo;
    pads.insert(pads.end(), hi.begin(), hi.end());
  } else {
    pads = symmetric_pads(expand_to(cx.arg_int_list(4), n));
  }
  conv_out(cx, cx.tensor(0), cx.tensor(1), b, stride, pads, dil, cx.arg_int(6), false, {});
}
MXTS_LOWER(lower_convnd, "aten::conv1d", "aten::conv2d", "aten::conv3d");

void lower_max_pool(Ctx& cx, const tj::Node*) {
  // max_pool2d(x, kernel, stride, padding, dilation, ceil_mode)
  size_t n = cx.rank(0) - 2;
  auto k = expand_to(cx.arg_int_list(1), n);
  auto s = cx.arg_int_list(2);
  s = s.empty() ? k : expand_to(s, n);
  cx.out(0, emit_max_pool(cx, cx.tensor(0), k, s, symmetric_pads(expand_to(cx.arg_int_list(3), n)),
                          expand_to(cx.arg_int_list(4), n), cx.arg_bool(5)));
}
MXTS_LOWER(lower_max_pool, "aten::max_pool1d", "aten::max_pool2d", "aten::max_pool3d");

void lower_avg_pool(Ctx& cx, const tj::Node*) {
  // avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
  size_t n = cx.rank(0) - 2;
  auto k = expand_to(cx.arg_int_list(1), n);
  auto s = cx.arg_int_list(2);
  s = s.empty() ? k : expand_to(s, n);
  bool div_override = cx.n_in() > 6 && !cx.is_none(6);
  bool cip = div_override || (cx.n_in() > 5 ? cx.arg_bool(5) : true);
  std::string y = emit_avg_pool(cx, cx.tensor(0), k, s, symmetric_pads(expand_to(cx.arg_int_list(3), n)),
                                cx.n_in() > 4 && cx.arg_bool(4), cip);
  if (div_override) {  // sum of the window / divisor
    double prod = 1;
    for (auto v : k) prod *= static_cast<double>(v);
    y = cx.emit1("Mul", {y, cx.cscalar(prod / cx.arg_double(6), cx.out_st())});
  }
  cx.out(0, y);
}
MXTS_LOWER(lower_avg_pool, "aten::avg_pool1d", "aten::avg_pool2d", "aten::avg_pool3d");

// Adaptive pooling: global -> GlobalAveragePool/GlobalMaxPool; divisible ->
// one pool; otherwise per spatial dim the ATen windows
// [floor(i*in/out), ceil((i+1)*in/out)) reduced and concatenated. Window
// bounds come from the example's spatial sizes (static spatial dims).
void lower_adaptive_pool(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  bool is_max = k.find("max") != std::string::npos;
  auto ex = cx.ex_t(0);
  size_t nd = ex.dim() - 2;
  auto out = expand_to(cx.arg_int_list(1), nd);
  std::string x = cx.tensor(0);
  auto bind_indices = [&]() {
    if (!is_max) return;
    auto v = std::make_shared<Val>();  // indices: not representable, an error if used
    v->iv = cx.ex_out[1];
    cx.out_val(1, v);
  };
  std::vector<int64_t> in;
  for (size_t d = 0; d < nd; ++d) in.push_back(ex.size(2 + d));
  cx.out(0, emit_adaptive_pool(cx, x, in, out, is_max));
  bind_indices();
}
MXTS_LOWER(lower_adaptive_pool, "aten::adaptive_avg_pool1d", "aten::adaptive_avg_pool2d",
           "aten::adaptive_avg_pool3d", "aten::adaptive_max_pool1d", "aten::adaptive_max_pool2d",
           "aten::adaptive_max_pool3d");

}  // namespace
}  // namespace mx::torchscript
