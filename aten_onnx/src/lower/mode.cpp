// mode(self, dim=-1, keepdim=False) -> (values, indices): the most frequent
// value along dim, the smallest of them on a tie of counts, and the last
// index holding it - as ATen's CPU kernel answers (it scans the sorted
// (value, index) pairs). Counts come from an [..., N, N] equality table
// over the dim (moved last), so memory is O(N^2) on that dim; NaN is
// counted as unequal to itself.
#include <limits>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using onnx::TensorProto;

std::string largest(OpContext& cx, int32_t dt) {
  if (mx::aten_onnx::is_floating(dt)) return cx.cscalar(std::numeric_limits<double>::infinity(), dt);
  if (dt == TensorProto::INT64)
    return cx.constant(mx::aten_onnx::int64_tensor({std::numeric_limits<int64_t>::max()}, true));
  if (dt == TensorProto::INT32) return cx.cscalar(std::numeric_limits<int32_t>::max(), dt);
  if (dt == TensorProto::UINT8) return cx.cscalar(255, dt);
  if (dt == TensorProto::INT8) return cx.cscalar(127, dt);
  cx.unsupported("mode of dtype " + mx::aten_onnx::dtype_name(dt));
}

void lower_mode(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const bool keepdim = cx.bool_arg("keepdim", false);
  if (r == 0) {
    cx.out(0, cx.emit1("Identity", {v.onnx}));
    return cx.out(1, cx.cscalar(0, TensorProto::INT64));
  }
  const int64_t d = norm_dim(cx.int_arg("dim", -1), r);
  std::vector<int64_t> perm;
  for (int64_t k = 0; k < r; ++k)
    if (k != d) perm.push_back(k);
  perm.push_back(d);
  const std::string x = d == r - 1 ? v.onnx : cx.transpose(v.onnx, perm);  // [..., N]
  const std::string same =
      cx.emit1("Equal", {cx.unsqueeze(x, {r}), cx.unsqueeze(x, {r - 1})});  // [..., N, N]
  const std::string counts = mx::aten_onnx::emit_reduce(
      cx, "ReduceSum", cx.cast(same, TensorProto::BOOL, TensorProto::INT64), {r}, false);
  const std::string best = mx::aten_onnx::emit_reduce(cx, "ReduceMax", counts, {r - 1}, true);  // [..., 1]
  const std::string candidates =
      cx.emit1("Where", {cx.emit1("Equal", {counts, best}), x, largest(cx, v.dtype)});
  const std::string value =
      mx::aten_onnx::emit_reduce(cx, "ReduceMin", candidates, {r - 1}, true);  // [..., 1]
  const std::string n = cx.dim_size(x, r - 1);
  const std::string j = cx.emit1("Range", {cx.ci64s(0), n, cx.ci64s(1)});
  const std::string at = cx.emit1("Where", {cx.emit1("Equal", {x, value}), j, cx.ci64s(-1)});
  const std::string index = mx::aten_onnx::emit_reduce(cx, "ReduceMax", at, {r - 1}, true);  // [..., 1]
  // Back to self's layout: the reduced dim (size 1) returns to d.
  auto placed = [&](const std::string& t) {
    std::string u = t;
    if (d != r - 1) {
      std::vector<int64_t> back(r);
      for (int64_t k = 0; k < r; ++k) back[perm[k]] = k;
      u = cx.transpose(u, back);
    }
    return keepdim ? u : cx.squeeze(u, {d});
  };
  cx.out(0, placed(value));
  cx.out(1, placed(index));
}
MX_ATEN_LOWER(lower_mode, "aten.mode.default");

}  // namespace
}  // namespace mx::aten_onnx
