// Reductions: mean/sum (dim lists, keepdim, dtype), amax/amin,
// max/min over a dim (values + indices), argmax/argmin, cumsum.
#include <onnx/onnx_pb.h>

#include <climits>

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

// any/all over dims: ReduceMax/ReduceMin of the values as int32 (ONNX
// reductions take no bool), compared with zero.
void lower_any_all(LowerCtx& cx) {
  const bool any = cx.target.rfind("aten.any", 0) == 0;
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  std::vector<int64_t> axes;
  if (cx.arg("dim")) axes = cx.ints("dim");
  for (auto& a : axes) a = norm_dim(a, r);
  std::string x = cx.emit1("Not", {cx.emit1("Equal", {cx.cast(v.onnx, v.dtype, onnx::TensorProto::INT32),
                                                     cx.cscalar(0, onnx::TensorProto::INT32)})});
  x = cx.cast(x, onnx::TensorProto::BOOL, onnx::TensorProto::INT32);
  std::string red = mx::aten_onnx::emit_reduce(cx, any ? "ReduceMax" : "ReduceMin", x, axes, cx.bool_arg("keepdim", false));
  cx.out(0, cx.cast(red, onnx::TensorProto::INT32, onnx::TensorProto::BOOL));
}
MXTE_LOWER(lower_any_all, "aten.any", "aten.all");

// diff(self, n=1, dim=-1, prepend=None, append=None), n = 1: prepend and
// append are concatenated first, as ATen does.
void lower_diff(LowerCtx& cx) {
  if (cx.int_arg("n", 1) != 1) cx.unsupported("diff with n != 1");
  const int64_t dim = norm_dim(cx.int_arg("dim", -1), cx.rank_of("self"));
  const int32_t dt = cx.out_dtype();
  std::string x = cx.operand("self", dt);
  if (cx.has("prepend") || cx.has("append")) {
    std::vector<std::string> parts;
    if (cx.has("prepend")) parts.push_back(cx.operand("prepend", dt));
    parts.push_back(x);
    if (cx.has("append")) parts.push_back(cx.operand("append", dt));
    x = cx.emit1("Concat", parts, {attr("axis", dim)});
  }
  std::string hi = cx.emit1("Slice", {x, cx.ci64({1}), cx.ci64({INT64_MAX}), cx.ci64({dim})});
  std::string lo = cx.emit1("Slice", {x, cx.ci64({0}), cx.ci64({-1}), cx.ci64({dim})});
  cx.out(0, dt == onnx::TensorProto::BOOL ? cx.emit1("Xor", {hi, lo}) : cx.emit1("Sub", {hi, lo}));
}
MXTE_LOWER(lower_diff, "aten.diff");

}  // namespace
}  // namespace mxte
