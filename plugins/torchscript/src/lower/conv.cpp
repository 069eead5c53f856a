// Convolutions (conv1d/2d/3d, _convolution incl. transposed) and pooling.
#include "ctx.h"

namespace mxts {
namespace {

std::vector<int64_t> sym_pads(const std::vector<int64_t>& p) {
  std::vector<int64_t> r(p);
  r.insert(r.end(), p.begin(), p.end());
  return r;
}
std::vector<int64_t> expand_to(std::vector<int64_t> v, size_t n) {
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  return v;
}

void emit_conv(Ctx& cx, const std::string& x, const std::string& w, const std::string& b,
               std::vector<int64_t> stride, std::vector<int64_t> pads, std::vector<int64_t> dil, int64_t groups,
               bool transposed, std::vector<int64_t> out_pad) {
  std::vector<std::string> ins = {x, w};
  if (!b.empty()) ins.push_back(b);
  std::vector<onnx::AttributeProto> a = {attr("strides", stride), attr("pads", pads), attr("dilations", dil),
                                         attr("group", groups)};
  if (transposed) {
    if (!out_pad.empty()) a.push_back(attr("output_padding", out_pad));
    cx.out(0, cx.emit1("ConvTranspose", ins, a));
  } else {
    cx.out(0, cx.emit1("Conv", ins, a));
  }
}

void lower_convolution(Ctx& cx, const tj::Node*) {
  // _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, ...)
  size_t n = cx.ex_t(1).dim() - 2;
  std::string b = cx.is_none(2) ? "" : cx.t(2);
  bool tr = cx.b(6);
  emit_conv(cx, cx.t(0), cx.t(1), b, expand_to(cx.ilist(3), n), sym_pads(expand_to(cx.ilist(4), n)),
            expand_to(cx.ilist(5), n), cx.i(8), tr, tr ? expand_to(cx.ilist(7), n) : std::vector<int64_t>{});
}
MXTS_LOWER(lower_convolution, "aten::_convolution");

void lower_convnd(Ctx& cx, const tj::Node*) {
  // conv2d(input, weight, bias, stride, padding (ints or 'same'/'valid'), dilation, groups)
  auto w = cx.ex_t(1);
  size_t n = w.dim() - 2;
  std::string b = cx.is_none(2) ? "" : cx.t(2);
  auto stride = expand_to(cx.ilist(3), n), dil = expand_to(cx.ilist(5), n);
  std::vector<int64_t> pads;
  if (cx.in(4)->iv.isString()) {
    std::string mode = cx.s(4);
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
    pads = sym_pads(expand_to(cx.ilist(4), n));
  }
  emit_conv(cx, cx.t(0), cx.t(1), b, stride, pads, dil, cx.i(6), false, {});
}
MXTS_LOWER(lower_convnd, "aten::conv1d", "aten::conv2d", "aten::conv3d");

void lower_max_pool(Ctx& cx, const tj::Node*) {
  // max_pool2d(x, kernel, stride, padding, dilation, ceil_mode)
  size_t n = cx.rank(0) - 2;
  auto k = expand_to(cx.ilist(1), n);
  auto s = cx.ilist(2);
  s = s.empty() ? k : expand_to(s, n);
  cx.out(0, cx.emit1("MaxPool", {cx.t(0)},
                     {attr("kernel_shape", k), attr("strides", s), attr("pads", sym_pads(expand_to(cx.ilist(3), n))),
                      attr("dilations", expand_to(cx.ilist(4), n)),
                      attr("ceil_mode", static_cast<int64_t>(cx.b(5)))}));
}
MXTS_LOWER(lower_max_pool, "aten::max_pool1d", "aten::max_pool2d", "aten::max_pool3d");

void lower_avg_pool(Ctx& cx, const tj::Node*) {
  // avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
  size_t n = cx.rank(0) - 2;
  auto k = expand_to(cx.ilist(1), n);
  auto s = cx.ilist(2);
  s = s.empty() ? k : expand_to(s, n);
  bool div_override = cx.n_in() > 6 && !cx.is_none(6);
  bool cip = div_override || (cx.n_in() > 5 ? cx.b(5) : true);
  std::string y = cx.emit1("AveragePool", {cx.t(0)},
                     {attr("kernel_shape", k), attr("strides", s), attr("pads", sym_pads(expand_to(cx.ilist(3), n))),
                      attr("ceil_mode", static_cast<int64_t>(cx.n_in() > 4 && cx.b(4))),
                      attr("count_include_pad", static_cast<int64_t>(cip))});
  if (div_override) {  // sum of the window / divisor
    double prod = 1;
    for (auto v : k) prod *= static_cast<double>(v);
    y = cx.emit1("Mul", {y, cx.cscalar(prod / cx.d(6), cx.out_dtype())});
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
  auto out = expand_to(cx.ilist(1), nd);
  std::string x = cx.t(0);
  auto bind_indices = [&]() {
    if (!is_max) return;
    auto v = std::make_shared<Val>();  // indices: not representable, an error if used
    v->iv = cx.ex_out[1];
    cx.out_val(1, v);
  };
  bool global = true;
  for (auto o : out) global &= o == 1;
  if (global) {
    cx.out(0, cx.emit1(is_max ? "GlobalMaxPool" : "GlobalAveragePool", {x}));
    bind_indices();
    return;
  }
  bool divisible = true;
  std::vector<int64_t> kk;
  for (size_t d = 0; d < nd; ++d) {
    int64_t in = ex.size(2 + d);
    divisible &= in % out[d] == 0;
    kk.push_back(out[d] ? in / out[d] : 1);
  }
  if (divisible) {
    cx.out(0, cx.emit1(is_max ? "MaxPool" : "AveragePool", {x}, {attr("kernel_shape", kk), attr("strides", kk)}));
    bind_indices();
    return;
  }
  for (size_t d = 0; d < nd; ++d) {
    int64_t in = ex.size(2 + d), o = out[d], ax = 2 + static_cast<int64_t>(d);
    if (in == o) continue;
    std::vector<std::string> parts;
    for (int64_t i = 0; i < o; ++i) {
      int64_t s = (i * in) / o, e = ((i + 1) * in + o - 1) / o;
      std::string sl = cx.emit1("Slice", {x, cx.ci64({s}), cx.ci64({e}), cx.ci64({ax})});
      parts.push_back(cx.emit1(is_max ? "ReduceMax" : "ReduceMean", {sl},
                               {attr("axes", std::vector<int64_t>{ax}), attr("keepdims", int64_t{1})}));
    }
    x = cx.emit1("Concat", parts, {attr("axis", ax)});
  }
  cx.out(0, x);
  bind_indices();
}
MXTS_LOWER(lower_adaptive_pool, "aten::adaptive_avg_pool1d", "aten::adaptive_avg_pool2d",
           "aten::adaptive_avg_pool3d", "aten::adaptive_max_pool1d", "aten::adaptive_max_pool2d",
           "aten::adaptive_max_pool3d");

}  // namespace
}  // namespace mxts
