// Reductions of complex values on the pair layout (complex_pairs.hpp):
// sum and mean(self, dim=None, keepdim=False, dtype=None) reduce each part
// over PyTorch's dims, never over the pair axis - "all dims" (no dim, or
// an empty list) are PyTorch's, and a negative dim counts from PyTorch's
// last dim, not from the pair axis; cumsum(self, dim, dtype=None) the same.
#include "mx/onnx_proto.hpp"

#include "complex_pairs.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void lower_complex_sum_mean(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int32_t to = cx.out_dtype();
  if (!pairs::is_complex(to)) cx.unsupported("a complex " + cx.op() + " to a real dtype");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const std::string x = cx.cast(v.onnx, pairs::component(v.dtype), pairs::component(to));
  std::vector<int64_t> axes = cx.ints("dim", std::vector<int64_t>{});
  for (auto& d : axes) d = norm_dim(d, r);
  if (axes.empty())
    for (int64_t d = 0; d < r; ++d) axes.push_back(d);
  if (axes.empty()) return cx.out(0, x == v.onnx ? cx.emit1("Identity", {x}) : x);  // a 0-d value
  const bool mean = cx.op() == "mean";
  cx.out(0, emit_reduce(cx, mean ? "ReduceMean" : "ReduceSum", x, axes, cx.bool_arg("keepdim", false)));
}
MX_ATEN_LOWER(lower_complex_sum_mean, "complex.aten.sum", "complex.aten.mean");

void lower_complex_cumsum(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int32_t to = cx.out_dtype();
  if (!pairs::is_complex(to)) cx.unsupported("a complex cumsum to a real dtype");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const std::string x = cx.cast(v.onnx, pairs::component(v.dtype), pairs::component(to));
  if (r == 0) return cx.out(0, x == v.onnx ? cx.emit1("Identity", {x}) : x);
  cx.out(0, cx.emit1("CumSum", {x, cx.ci64s(norm_dim(cx.int_arg("dim"), r))}));
}
MX_ATEN_LOWER(lower_complex_cumsum, "complex.aten.cumsum");

}  // namespace
}  // namespace mx::aten_onnx
