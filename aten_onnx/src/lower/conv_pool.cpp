// Convolutions (conv1d/2d/3d with int or 'same'/'valid' padding; core
// ATen's convolution incl. transposed) and pooling (max, average,
// adaptive). The ONNX patterns are the shared ones (aten_onnx).
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {
using mx::aten_onnx::expand_to;
using mx::aten_onnx::symmetric_pads;

void lower_conv(OpContext& cx) {
  const auto w = cx.static_shape("weight");
  const size_t n = w.size() - 2;
  mx::aten_onnx::ConvParams p;
  p.stride = expand_to(cx.ints("stride", std::vector<int64_t>{1}), n);
  p.dilation = expand_to(cx.ints("dilation", std::vector<int64_t>{1}), n);
  p.groups = cx.int_arg("groups", 1);
  if (cx.arg_kind("padding") == ArgKind::string) {  // conv2d.padding overload: 'same' / 'valid'
    std::vector<int64_t> lo(n, 0), hi(n, 0);
    if (cx.string_arg("padding", "") == "same")
      for (size_t k = 0; k < n; ++k) {
        const int64_t total = p.dilation[k] * (w[2 + k] - 1);
        lo[k] = total / 2;
        hi[k] = total - lo[k];
      }
    p.pads = lo;
    p.pads.insert(p.pads.end(), hi.begin(), hi.end());
  } else {
    p.pads = symmetric_pads(expand_to(cx.ints("padding", std::vector<int64_t>{0}), n));
  }
  p.transposed = cx.bool_arg("transposed", false) || cx.target().rfind("aten.conv_transpose", 0) == 0;
  if (p.transposed) p.output_padding = expand_to(cx.ints("output_padding", std::vector<int64_t>{0}), n);
  const std::string b = cx.has("bias") ? cx.tensor("bias") : "";
  cx.out(0, mx::aten_onnx::emit_conv(cx, cx.tensor("input"), cx.tensor("weight"), b, p));
}
MX_ATEN_LOWER(lower_conv, "aten.conv1d", "aten.conv2d", "aten.conv3d", "aten.convolution",
              "aten._convolution", "aten.conv_transpose1d", "aten.conv_transpose2d", "aten.conv_transpose3d");

// max_pool2d(self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False);
// core ATen's max_pool2d_with_indices has a second output (the indices),
// which ONNX graphs of eval models never read: it stays unbound.
void lower_max_pool(OpContext& cx) {
  const size_t n = static_cast<size_t>(cx.rank_of("self") - 2);
  const auto k = expand_to(cx.ints("kernel_size"), n);
  auto s = cx.ints("stride", std::vector<int64_t>{});
  s = s.empty() ? k : expand_to(s, n);
  cx.out(0, mx::aten_onnx::emit_max_pool(
                cx, cx.tensor("self"), k, s,
                symmetric_pads(expand_to(cx.ints("padding", std::vector<int64_t>{0}), n)),
                expand_to(cx.ints("dilation", std::vector<int64_t>{1}), n), cx.bool_arg("ceil_mode", false)));
}
MX_ATEN_LOWER(lower_max_pool, "aten.max_pool1d", "aten.max_pool2d", "aten.max_pool3d",
              "aten.max_pool2d_with_indices", "aten.max_pool3d_with_indices");

// avg_pool2d(self, kernel_size, stride=[], padding=0, ceil_mode=False,
//            count_include_pad=True, divisor_override=None)
void lower_avg_pool(OpContext& cx) {
  const size_t n = static_cast<size_t>(cx.rank_of("self") - 2);
  const auto k = expand_to(cx.ints("kernel_size"), n);
  auto s = cx.ints("stride", std::vector<int64_t>{});
  s = s.empty() ? k : expand_to(s, n);
  const bool div_override = cx.has("divisor_override");
  std::string y = mx::aten_onnx::emit_avg_pool(
      cx, cx.tensor("self"), k, s, symmetric_pads(expand_to(cx.ints("padding", std::vector<int64_t>{0}), n)),
      cx.bool_arg("ceil_mode", false), div_override || cx.bool_arg("count_include_pad", true));
  if (div_override) {  // the window's sum / divisor
    double prod = 1;
    for (auto v : k) prod *= static_cast<double>(v);
    y = cx.emit1("Mul", {y, cx.cscalar(prod / cx.float_arg("divisor_override"), cx.out_dtype())});
  }
  cx.out(0, y);
}
MX_ATEN_LOWER(lower_avg_pool, "aten.avg_pool1d", "aten.avg_pool2d", "aten.avg_pool3d");

void lower_adaptive_pool(OpContext& cx) {
  const bool is_max = cx.target().find("max") != std::string::npos;
  const auto& shape = cx.value_of("self").shape;
  const size_t nd = shape.size() - 2;
  const auto out = expand_to(cx.ints("output_size"), nd);
  std::vector<int64_t> in;
  for (size_t d = 0; d < nd; ++d) in.push_back(shape[2 + d].is_static ? shape[2 + d].value : -1);
  cx.out(0, mx::aten_onnx::emit_adaptive_pool(cx, cx.tensor("self"), in, out, is_max));
}
MX_ATEN_LOWER(lower_adaptive_pool, "aten.adaptive_avg_pool1d", "aten.adaptive_avg_pool2d",
              "aten._adaptive_avg_pool2d", "aten.adaptive_avg_pool3d", "aten._adaptive_avg_pool3d",
              "aten.adaptive_max_pool1d", "aten.adaptive_max_pool2d", "aten.adaptive_max_pool3d");

}  // namespace
}  // namespace mx::aten_onnx
