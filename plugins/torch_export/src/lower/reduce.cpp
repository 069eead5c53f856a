// Reductions: mean/sum (dim lists, keepdim, dtype), amax/amin,
// max/min over a dim (values + indices), argmax/argmin, cumsum.
#include "lower_ctx.hpp"

namespace mxte {
namespace {

std::vector<int64_t> axes_arg(LowerCtx& cx, int64_t rank) {
  auto d = cx.ints("dim", std::vector<int64_t>{});
  for (auto& x : d) x = norm_dim(x, rank);
  return d;
}

void lower_mean_sum(LowerCtx& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t r = cx.rank_of("self");
  const bool mean = cx.target.rfind("aten.mean", 0) == 0;
  std::string x = cx.operand("self", dt);
  if (r == 0) return cx.out(0, cx.emit1("Identity", {x}));
  cx.out(0, mx::aten_onnx::emit_reduce(cx, mean ? "ReduceMean" : "ReduceSum", x, axes_arg(cx, r),
                                       cx.bool_arg("keepdim", false)));
}
MXTE_LOWER(lower_mean_sum, "aten.mean", "aten.sum");

void lower_amax(LowerCtx& cx) {
  const bool is_max = cx.target.rfind("aten.amax", 0) == 0;
  cx.out(0, mx::aten_onnx::emit_reduce(cx, is_max ? "ReduceMax" : "ReduceMin", cx.tensor("self"),
                                       axes_arg(cx, cx.rank_of("self")), cx.bool_arg("keepdim", false)));
}
MXTE_LOWER(lower_amax, "aten.amax", "aten.amin");

// max.dim / min.dim -> (values, indices)
void lower_max_dim(LowerCtx& cx) {
  const bool is_max = cx.target.rfind("aten.max", 0) == 0;
  const int64_t dim = norm_dim(cx.int_arg("dim"), cx.rank_of("self"));
  const bool keep = cx.bool_arg("keepdim", false);
  std::string x = cx.tensor("self");
  cx.out(0, mx::aten_onnx::emit_reduce(cx, is_max ? "ReduceMax" : "ReduceMin", x, {dim}, keep));
  cx.out(1, cx.emit1(is_max ? "ArgMax" : "ArgMin", {x}, {attr("axis", dim), attr("keepdims", int64_t{keep})}));
}
MXTE_LOWER(lower_max_dim, "aten.max.dim", "aten.min.dim");

void lower_argmax(LowerCtx& cx) {
  const std::string op = cx.target.rfind("aten.argmax", 0) == 0 ? "ArgMax" : "ArgMin";
  const bool keep = cx.bool_arg("keepdim", false);
  std::string x = cx.tensor("self");
  if (!cx.has("dim")) {
    x = cx.emit1("Reshape", {x, cx.ci64({-1})});
    cx.out(0, cx.emit1(op, {x}, {attr("axis", int64_t{0}), attr("keepdims", int64_t{0})}));
    return;
  }
  const int64_t dim = norm_dim(cx.int_arg("dim"), cx.rank_of("self"));
  cx.out(0, cx.emit1(op, {x}, {attr("axis", dim), attr("keepdims", int64_t{keep})}));
}
MXTE_LOWER(lower_argmax, "aten.argmax", "aten.argmin");

void lower_cumsum(LowerCtx& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t dim = norm_dim(cx.int_arg("dim"), cx.rank_of("self"));
  cx.out(0, cx.emit1("CumSum", {cx.operand("self", dt), cx.ci64s(dim)}));
}
MXTE_LOWER(lower_cumsum, "aten.cumsum");

}  // namespace
}  // namespace mxte
