// Reductions: mean/sum/amax/amin/max/min/argmax/argmin.
// ReduceSum takes axes as an input (opset >= 13); the others as an
// attribute up to opset 17.
#include "ctx.h"

namespace mxts {
namespace {

std::vector<int64_t> dims_arg(Ctx& cx, size_t idx, int64_t r) {
  std::vector<int64_t> d;
  if (idx < cx.n_in() && !cx.is_none(idx)) d = cx.ilist(idx);
  for (auto& x : d) x = norm_dim(x, r);
  return d;
}

std::string reduce(Ctx& cx, const std::string& op, const std::string& x, const std::vector<int64_t>& axes,
                   bool keep) {
  std::vector<onnx::AttributeProto> a = {attr("keepdims", static_cast<int64_t>(keep))};
  if (op == "ReduceSum") {
    if (axes.empty()) return cx.emit1(op, {x}, a);
    return cx.emit1(op, {x, cx.ci64(axes)}, a);
  }
  if (!axes.empty()) a.push_back(attr("axes", axes));
  return cx.emit1(op, {x}, a);
}

void lower_mean_sum(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  auto dt = cx.out_dtype();
  int64_t r = cx.rank(0);
  std::string x = cx.t_as(0, dt);
  // mean(self, dtype) / sum(self, dtype): all axes
  bool has_dims = cx.n_in() >= 3 && (cx.in(1)->iv.isIntList() || cx.in(1)->iv.isList() || cx.in(1)->iv.isNone());
  std::vector<int64_t> axes = has_dims ? dims_arg(cx, 1, r) : std::vector<int64_t>{};
  bool keep = has_dims ? cx.b(2) : false;
  if (r == 0) { cx.out(0, cx.emit1("Identity", {x})); return; }
  cx.out(0, reduce(cx, k == "aten::mean" ? "ReduceMean" : "ReduceSum", x, axes, keep));
}
MXTS_LOWER(lower_mean_sum, "aten::mean", "aten::sum");

void lower_amax(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  int64_t r = cx.rank(0);
  auto axes = dims_arg(cx, 1, r);
  bool keep = cx.n_in() > 2 ? cx.b(2) : false;
  cx.out(0, reduce(cx, k == "aten::amax" ? "ReduceMax" : "ReduceMin", cx.t(0), axes, keep));
}
MXTS_LOWER(lower_amax, "aten::amax", "aten::amin");

void lower_max_min(Ctx& cx, const tj::Node* n) {
  bool is_max = std::string(n->kind().toQualString()) == "aten::max";
  std::string x = cx.t(0);
  if (cx.n_in() == 1) {  // full reduction
    cx.out(0, reduce(cx, is_max ? "ReduceMax" : "ReduceMin", x, {}, false));
    return;
  }
  if (cx.n_in() == 2 && cx.in(1)->iv.isTensor()) {  // element-wise
    auto dt = cx.out_dtype();
    cx.out(0, cx.emit1(is_max ? "Max" : "Min", {cx.t_as(0, dt), cx.t_as(1, dt)}));
    return;
  }
  int64_t dim = norm_dim(cx.i(1), cx.rank(0));
  bool keep = cx.n_in() > 2 ? cx.b(2) : false;
  cx.out(0, reduce(cx, is_max ? "ReduceMax" : "ReduceMin", x, {dim}, keep));
  cx.out(1, cx.emit1(is_max ? "ArgMax" : "ArgMin", {x},
                     {attr("axis", dim), attr("keepdims", static_cast<int64_t>(keep))}));
}
MXTS_LOWER(lower_max_min, "aten::max", "aten::min");

void lower_argmax(Ctx& cx, const tj::Node* n) {
  std::string op = std::string(n->kind().toQualString()) == "aten::argmax" ? "ArgMax" : "ArgMin";
  bool keep = cx.n_in() > 2 ? cx.b(2) : false;
  std::string x = cx.t(0);
  if (cx.n_in() < 2 || cx.is_none(1)) {
    x = cx.emit1("Reshape", {x, cx.ci64({-1})});
    std::string r = cx.emit1(op, {x}, {attr("axis", int64_t{0}), attr("keepdims", int64_t{0})});
    if (keep) {
      std::vector<int64_t> ones(cx.rank(0), 1);
      r = cx.emit1("Reshape", {r, cx.ci64(ones)});
    }
    cx.out(0, r);
    return;
  }
  int64_t dim = norm_dim(cx.i(1), cx.rank(0));
  cx.out(0, cx.emit1(op, {x}, {attr("axis", dim), attr("keepdims", static_cast<int64_t>(keep))}));
}
MXTS_LOWER(lower_argmax, "aten::argmax", "aten::argmin");

}  // namespace
}  // namespace mxts
