// Reductions of complex values on the pair layout (complex_pairs.hpp):
// sum and mean(self, dim=None, keepdim=False, dtype=None) reduce each part
// over PyTorch's dims, never over the pair axis - "all dims" (no dim, or
// an empty list) are PyTorch's, and a negative dim counts from PyTorch's
// last dim, not from the pair axis; cumsum(self, dim, dtype=None) the same.
// prod(self, dim, keepdim=False, dtype=None) (no dim: of every element)
// multiplies the slices along a static dim of up to kMaxProd one after the
// other (ONNX's ReduceProd is a real product); a longer or dynamic dim is
// refused.
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

constexpr int64_t kMaxProd = 64;

void lower_complex_prod(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int32_t to = cx.out_dtype();
  if (!pairs::is_complex(to)) cx.unsupported("a complex prod to a real dtype");
  const int32_t dt = pairs::component(to);
  const int64_t r = static_cast<int64_t>(v.shape.size());
  std::string z = cx.cast(v.onnx, pairs::component(v.dtype), dt);
  int64_t d = 0, n = 1;
  bool sized = true;
  if (cx.has("dim")) {
    d = norm_dim(cx.int_arg("dim"), r);
    sized = v.shape[d].is_static;
    n = v.shape[d].value;
  } else {  // all elements: a [numel, 2]
    for (const Dim& s : v.shape) {
      sized &= s.is_static;
      n *= s.value;
    }
    z = cx.emit1("Reshape", {z, cx.ci64({-1, 2})});
  }
  if (r == 0) return cx.out(0, z == v.onnx ? cx.emit1("Identity", {z}) : z);
  if (!sized || n > kMaxProd || n < 1)
    cx.unsupported("prod of a complex tensor along a dynamic dim or one of more than " +
                   std::to_string(kMaxProd) + " elements (its running product is unrolled)");
  const std::string axis = cx.ci64({d});
  std::string acc = cx.emit1("Slice", {z, cx.ci64({0}), cx.ci64({1}), axis});
  for (int64_t k = 1; k < n; ++k)
    acc = pairs::product(cx, acc, cx.emit1("Slice", {z, cx.ci64({k}), cx.ci64({k + 1}), axis}));
  const bool keep = cx.has("dim") && cx.bool_arg("keepdim", false);
  cx.out(0, keep ? acc : cx.squeeze(acc, {d}));
}
MX_ATEN_LOWER(lower_complex_prod, "complex.aten.prod");

}  // namespace
}  // namespace mx::aten_onnx
