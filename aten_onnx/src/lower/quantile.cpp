// quantile / nanquantile(self, q, dim=None, keepdim=False, *,
// interpolation='linear'), q a float or a 0-d / 1-d tensor, as ATen's
// quantile_compute does it: the values sorted along `dim` (the flattened
// tensor when dim is None), a rank per q
//   quantile:     q (n - 1), n - 1 itself for a row holding a NaN
//   nanquantile:  q (count - 1) over the row's non-NaN count, at least 0
// moved by the interpolation (lower: floor, higher: ceil, nearest: round
// half to even), then the sorted value at floor(rank), lerped toward the
// one at ceil(rank) by rank - floor(rank) (linear) or 0.5 (midpoint) with
// ATen's two-sided lerp. NaNs sort last as +inf (ONNX TopK has no NaN
// order); a row with a NaN gives NaN (quantile), a row of NaNs gives NaN
// (nanquantile), as ATen's. Any dim size, dynamic too (the row length is
// read from the shape).
#include "mx/onnx_proto.hpp"

#include <cmath>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void lower_quantile(OpContext& cx) {
  const bool skip_nan = cx.op() == "nanquantile";
  const Value& v = cx.value_of("self");
  const int32_t dt = v.dtype;
  const int64_t rank = static_cast<int64_t>(v.shape.size());
  const std::string mode = cx.string_arg("interpolation", "linear");
  if (mode != "linear" && mode != "lower" && mode != "higher" && mode != "midpoint" && mode != "nearest")
    cx.unsupported(cx.op() + " with interpolation '" + mode + "'");
  const bool keepdim = cx.bool_arg("keepdim", false);
  const bool all = !cx.has("dim");
  const int64_t dim = all ? 0 : norm_dim(cx.int_arg("dim"), std::max<int64_t>(rank, 1));

  // The rows: x with `dim` moved last ([others..., n]), or flattened ([n]).
  std::string x = v.onnx;
  int64_t wrank = 1, size = -1;
  if (all || rank == 0) {
    x = cx.emit1("Reshape", {x, cx.ci64({-1})});
    bool known = true;
    size = 1;
    for (const Dim& d : v.shape) known = known && d.is_static, size *= d.value;
    if (!known) size = -1;
  } else {
    std::vector<int64_t> perm;
    for (int64_t i = 0; i < rank; ++i)
      if (i != dim) perm.push_back(i);
    perm.push_back(dim);
    if (dim != rank - 1) x = cx.transpose(x, perm);
    wrank = rank;
    size = v.shape[dim].is_static ? v.shape[dim].value : -1;
  }
  const int64_t last = wrank - 1;
  const std::string nan = emit_is_nan(cx, x, dt);
  const std::string inf = cx.cscalar(INFINITY, dt);
  const auto sorted = emit_sort(cx, cx.emit1("Where", {nan, inf, x}), dt, wrank, last, size, false);

  // q as a 1-D tensor [Q]
  const bool q_tensor = cx.arg_kind("q") == ArgKind::tensor;
  const bool q_vector = q_tensor && cx.rank_of("q") == 1;
  std::string q = cx.operand("q", dt);
  if (!q_vector) q = cx.emit1("Reshape", {q, cx.ci64({1})});

  // ranks [..., Q]: the row's NaN test and count keep their last dim (1)
  const std::string zero = cx.cscalar(0, dt), one = cx.cscalar(1, dt);
  std::string ranks, empty;
  if (skip_nan) {
    const std::string count = emit_reduce(
        cx, "ReduceSum", cx.cast(cx.emit1("Not", {nan}), onnx::TensorProto::BOOL, dt), {last}, true);
    ranks = cx.emit1("Max", {cx.emit1("Mul", {q, cx.emit1("Sub", {count, one})}), zero});
    empty = cx.emit1("Equal", {count, zero});
  } else {
    const std::string n1 =
        cx.cast(cx.emit1("Sub", {cx.dim_size(x, last), cx.ci64s(1)}), onnx::TensorProto::INT64, dt);
    empty =
        cx.cast(emit_reduce(cx, "ReduceMax", cx.cast(nan, onnx::TensorProto::BOOL, onnx::TensorProto::INT32),
                            {last}, true),
                onnx::TensorProto::INT32, onnx::TensorProto::BOOL);
    ranks = cx.emit1("Where", {empty, n1, cx.emit1("Mul", {q, n1})});
  }
  if (mode == "lower") ranks = cx.emit1("Floor", {ranks});
  else if (mode == "higher") ranks = cx.emit1("Ceil", {ranks});
  else if (mode == "nearest") ranks = cx.emit1("Round", {ranks});
  const std::string below = cx.emit1("Floor", {ranks});
  auto at = [&](const std::string& r) {
    return cx.emit1("GatherElements", {sorted.values, cx.cast(r, dt, onnx::TensorProto::INT64)},
                    {attr("axis", last)});
  };
  std::string y = at(below);
  if (mode == "linear" || mode == "midpoint") {
    const std::string above = at(cx.emit1("Ceil", {ranks}));
    const std::string w = mode == "midpoint" ? cx.cscalar(0.5, dt) : cx.emit1("Sub", {ranks, below});
    // ATen's lerp: from the near end (w < 0.5: below + w d, else above - (1 - w) d)
    const std::string d = cx.emit1("Sub", {above, y});
    const std::string from_below = cx.emit1("Add", {y, cx.emit1("Mul", {w, d})});
    const std::string from_above = cx.emit1("Sub", {above, cx.emit1("Mul", {cx.emit1("Sub", {one, w}), d})});
    const std::string near_below = cx.emit1("Less", {w, cx.cscalar(0.5, dt)});
    y = cx.emit1("Where", {near_below, from_below, from_above});
  }
  y = cx.emit1("Where", {empty, cx.cscalar(NAN, dt), y});

  // [others..., Q] -> [Q, others...] (q 1-D) or [others...], then keepdim's 1s
  if (q_vector) {
    if (wrank > 1) {
      std::vector<int64_t> perm = {last};
      for (int64_t i = 0; i < last; ++i) perm.push_back(i);
      y = cx.transpose(y, perm);
    }
  } else {
    y = cx.squeeze(y, {last});
  }
  if (keepdim) {
    const int64_t off = q_vector ? 1 : 0;
    std::vector<int64_t> axes;
    if (all)
      for (int64_t i = 0; i < rank; ++i) axes.push_back(off + i);
    else if (rank > 0) axes.push_back(off + dim);
    if (!axes.empty()) y = cx.unsqueeze(y, axes);
  }
  cx.out(0, cx.cast(y, dt, cx.out_dtype()));
}
MX_ATEN_LOWER(lower_quantile, "aten.quantile", "aten.nanquantile");

}  // namespace
}  // namespace mx::aten_onnx
