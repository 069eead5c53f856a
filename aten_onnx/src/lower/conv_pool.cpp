// Convolutions (conv1d/2d/3d with int or 'same'/'valid' padding; core
// ATen's convolution incl. transposed) and pooling (max with its indices,
// max_unpool, average, adaptive). The ONNX patterns are the shared ones
// (aten_onnx).
#include "mx/onnx_proto.hpp"

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
// core ATen's max_pool2d_with_indices has a second output, the indices
// (what max_unpool reads): a second MaxPool gives them, which dead-node
// elimination drops when nothing reads them. ONNX numbers each element
// over the whole tensor, ATen within its (n, c) plane: the index modulo the
// plane size.
void lower_max_pool(OpContext& cx) {
  const size_t n = static_cast<size_t>(cx.rank_of("self") - 2);
  const auto k = expand_to(cx.ints("kernel_size"), n);
  auto s = cx.ints("stride", std::vector<int64_t>{});
  s = s.empty() ? k : expand_to(s, n);
  const auto pads = symmetric_pads(expand_to(cx.ints("padding", std::vector<int64_t>{0}), n));
  const auto dilation = expand_to(cx.ints("dilation", std::vector<int64_t>{1}), n);
  const bool ceil = cx.bool_arg("ceil_mode", false);
  const std::string x = cx.tensor("self");
  cx.out(0, mx::aten_onnx::emit_max_pool(cx, x, k, s, pads, dilation, ceil));
  if (cx.n_outputs() < 2) return;
  const auto both = cx.emit("MaxPool", {x},
                            {attr("kernel_shape", k), attr("strides", s), attr("pads", pads),
                             attr("dilations", dilation), attr("ceil_mode", static_cast<int64_t>(ceil))},
                            2);
  const int64_t r = cx.rank_of("self");
  const std::string plane =
      cx.emit1("ReduceProd", {cx.emit1("Slice", {cx.shape_of(x), cx.ci64({2}), cx.ci64({r})})},
               {attr("keepdims", int64_t{0})});
  cx.out(1, cx.emit1("Mod", {both[1], plane}));
}
MX_ATEN_LOWER(lower_max_pool, "aten.max_pool1d", "aten.max_pool2d", "aten.max_pool3d",
              "aten.max_pool1d_with_indices", "aten.max_pool2d_with_indices", "aten.max_pool3d_with_indices");

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

// max_unpool2d / 3d(self, indices, output_size, ...): each value scattered
// to its index within its (n, c) plane of the output_size plane.
void lower_max_unpool(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  const std::string idx = cx.cast(cx.tensor("indices"), cx.dtype_of("indices"), onnx::TensorProto::INT64);
  const std::string nc = cx.emit1("Slice", {cx.shape_of(x), cx.ci64({0}), cx.ci64({2})});
  const std::string flat = cx.emit1("Concat", {nc, cx.ci64({-1})}, {attr("axis", int64_t{0})});
  const std::string size = cx.int_list("output_size");
  const std::string plane = cx.emit1("ReduceProd", {size}, {attr("keepdims", int64_t{1})});
  const std::string zeros =
      cx.emit1("Expand", {cx.cscalar(0, dt), cx.emit1("Concat", {nc, plane}, {attr("axis", int64_t{0})})});
  const std::string y =
      cx.emit1("ScatterElements", {zeros, cx.emit1("Reshape", {idx, flat}), cx.emit1("Reshape", {x, flat})},
               {attr("axis", int64_t{2})});
  cx.out(0, cx.emit1("Reshape", {y, cx.emit1("Concat", {nc, size}, {attr("axis", int64_t{0})})}));
}
MX_ATEN_LOWER(lower_max_unpool, "aten.max_unpool2d", "aten.max_unpool3d");

void lower_adaptive_pool(OpContext& cx) {
  const bool is_max = cx.target().find("max") != std::string::npos;
  const auto& shape = cx.value_of("self").shape;
  const size_t nd = shape.size() - 2;
  const auto given = cx.static_ints("output_size");
  if (!given) {  // sizes computed from the input's at run time
    if (is_max) cx.unsupported("adaptive max pooling to an output size known at run time only");
    if (cx.list_length("output_size") != nd) cx.unsupported("an adaptive pool whose output_size lacks a dim");
    const int32_t dt = cx.dtype_of("self");
    return cx.out(0, mx::aten_onnx::emit_adaptive_avg_pool_dynamic(cx, cx.tensor("self"), nd + 2,
                                                                   cx.int_list("output_size"), dt));
  }
  const auto out = expand_to(*given, nd);
  std::vector<int64_t> in;
  bool dynamic = false;
  for (size_t d = 0; d < nd; ++d) {
    in.push_back(shape[2 + d].is_static ? shape[2 + d].value : -1);
    dynamic |= in.back() < 0 && out[d] != 1;
  }
  // Windows over a dim known at run time only: Slice + ReduceMean per
  // window with bounds computed each would be ~10 nodes per output cell
  // (UperNet's pyramid pooling to 6 x 6); prefix sums are a fixed ~14 per dim.
  if (dynamic && !is_max)
    return cx.out(0, mx::aten_onnx::emit_adaptive_avg_pool_dynamic(cx, cx.tensor("self"), nd + 2, cx.ci64(out),
                                                                   cx.dtype_of("self")));
  cx.out(0, mx::aten_onnx::emit_adaptive_pool(cx, cx.tensor("self"), in, out, is_max, cx.dtype_of("self")));
  if (!is_max || cx.n_outputs() < 2) return;
  // The indices (return_indices=True): where every output size divides
  // its static input size the windows are a MaxPool's, kernel = stride =
  // in / out, whose second output numbered within the (n, c) plane they
  // are. Otherwise they stay uncomputed (the training level always has the
  // output; a frontend names it if a node reads it).
  std::vector<int64_t> k;
  for (size_t d = 0; d < nd; ++d) {
    if (in[d] < 0 || out[d] <= 0 || in[d] % out[d] != 0)
      return cx.leave_uncomputed(1, "its windows overlap or vary in size, which no ONNX pooling numbers");
    k.push_back(in[d] / out[d]);
  }
  const std::string x = cx.tensor("self");
  const auto both = cx.emit("MaxPool", {x}, {attr("kernel_shape", k), attr("strides", k)}, 2);
  const int64_t r = static_cast<int64_t>(shape.size());
  const std::string plane =
      cx.emit1("ReduceProd", {cx.emit1("Slice", {cx.shape_of(x), cx.ci64({2}), cx.ci64({r})})},
               {attr("keepdims", int64_t{0})});
  cx.out(1, cx.emit1("Mod", {both[1], plane}));
}
MX_ATEN_LOWER(lower_adaptive_pool, "aten.adaptive_avg_pool1d", "aten.adaptive_avg_pool2d",
              "aten._adaptive_avg_pool2d", "aten.adaptive_avg_pool3d", "aten._adaptive_avg_pool3d",
              "aten.adaptive_max_pool1d", "aten.adaptive_max_pool2d", "aten.adaptive_max_pool3d");

}  // namespace
}  // namespace mx::aten_onnx
