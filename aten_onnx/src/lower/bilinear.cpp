// nn.Bilinear: bilinear (training IR) -> Einsum; _trilinear (what core IR
// makes of it) -> the three inputs unsqueezed at their expand dims,
// multiplied and summed over sumdim, which is its definition (unroll_dim
// only chooses ATen's loop order).
#include "mx/onnx_proto.hpp"

#include <algorithm>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

// bilinear(input1, input2, weight, bias=None): y[..., o] = x1[..., i] W[o, i, j] x2[..., j] + b[o]
void lower_bilinear(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  std::string y = cx.emit1("Einsum", {cx.tensor("input1"), cx.tensor("weight"), cx.tensor("input2")},
                           {attr("equation", std::string("...i,oij,...j->...o"))});
  if (cx.has("bias")) y = cx.emit1("Add", {y, cx.operand("bias", dt)});
  cx.out(0, y);
}
MX_ATEN_LOWER(lower_bilinear, "aten.bilinear");

void lower_trilinear(OpContext& cx) {
  const int64_t total = cx.rank_of("i1") + static_cast<int64_t>(cx.ints("expand1").size());
  auto expanded = [&](const char* input, const char* dims) {
    std::vector<int64_t> axes = cx.ints(dims);
    for (auto& a : axes) a = norm_dim(a, total);
    std::sort(axes.begin(), axes.end());
    const std::string x = cx.tensor(input);
    return axes.empty() ? x : cx.unsqueeze(x, axes);
  };
  std::string p = cx.emit1("Mul", {expanded("i1", "expand1"), expanded("i2", "expand2")});
  p = cx.emit1("Mul", {p, expanded("i3", "expand3")});
  std::vector<int64_t> sum = cx.ints("sumdim");
  for (auto& a : sum) a = norm_dim(a, total);
  if (!sum.empty()) p = cx.emit1("ReduceSum", {p, cx.ci64(sum)}, {attr("keepdims", int64_t{0})});
  cx.out(0, p);
}
MX_ATEN_LOWER(lower_trilinear, "aten._trilinear");

}  // namespace
}  // namespace mx::aten_onnx
