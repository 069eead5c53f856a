// Reductions: mean/sum/amax/amin/max/min/argmax/argmin.
// ReduceSum takes axes as an input (opset >= 13); the others as an
// attribute up to opset 17.
#include <cmath>

#include "ctx.hpp"

namespace mx::torchscript {
namespace {

std::vector<int64_t> dims_arg(Ctx& cx, size_t idx, int64_t r) {
  std::vector<int64_t> d;
  if (idx < cx.n_in() && !cx.is_none(idx)) d = cx.arg_int_list(idx);
  for (auto& x : d) x = norm_dim(x, r);
  return d;
}

std::string reduce(Ctx& cx, const std::string& op, const std::string& x, const std::vector<int64_t>& axes,
                   bool keep) {
  return emit_reduce(cx, op, x, axes, keep);
}

void lower_mean_sum(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  auto dt = cx.out_st();
  int64_t r = cx.rank(0);
  std::string x = cx.tensor_as(0, dt);
  // mean(self, dtype) / sum(self, dtype): all axes
  bool has_dims =
      cx.n_in() >= 3 && (cx.in(1)->iv.isIntList() || cx.in(1)->iv.isList() || cx.in(1)->iv.isNone());
  std::vector<int64_t> axes = has_dims ? dims_arg(cx, 1, r) : std::vector<int64_t>{};
  bool keep = has_dims ? cx.arg_bool(2) : false;
  if (r == 0) {
    cx.out(0, cx.emit1("Identity", {x}));
    return;
  }
  cx.out(0, reduce(cx, k == "aten::mean" ? "ReduceMean" : "ReduceSum", x, axes, keep));
}
MXTS_LOWER(lower_mean_sum, "aten::mean", "aten::sum");

void lower_amax(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  int64_t r = cx.rank(0);
  auto axes = dims_arg(cx, 1, r);
  bool keep = cx.n_in() > 2 ? cx.arg_bool(2) : false;
  cx.out(0, reduce(cx, k == "aten::amax" ? "ReduceMax" : "ReduceMin", cx.tensor(0), axes, keep));
}
MXTS_LOWER(lower_amax, "aten::amax", "aten::amin");

void lower_max_min(Ctx& cx, const tj::Node* n) {
  bool is_max = std::string(n->kind().toQualString()) == "aten::max";
  std::string x = cx.tensor(0);
  if (cx.n_in() == 1) {  // full reduction
    cx.out(0, reduce(cx, is_max ? "ReduceMax" : "ReduceMin", x, {}, false));
    return;
  }
  if (cx.n_in() == 2 && cx.in(1)->iv.isTensor()) {  // element-wise
    auto dt = cx.out_st();
    cx.out(0, cx.emit1(is_max ? "Max" : "Min", {cx.tensor_as(0, dt), cx.tensor_as(1, dt)}));
    return;
  }
  int64_t dim = norm_dim(cx.arg_int(1), cx.rank(0));
  bool keep = cx.n_in() > 2 ? cx.arg_bool(2) : false;
  cx.out(0, reduce(cx, is_max ? "ReduceMax" : "ReduceMin", x, {dim}, keep));
  cx.out(1, cx.emit1(is_max ? "ArgMax" : "ArgMin", {x},
                     {attr("axis", dim), attr("keepdims", static_cast<int64_t>(keep))}));
}
MXTS_LOWER(lower_max_min, "aten::max", "aten::min");

void lower_argmax(Ctx& cx, const tj::Node* n) {
  std::string op = std::string(n->kind().toQualString()) == "aten::argmax" ? "ArgMax" : "ArgMin";
  bool keep = cx.n_in() > 2 ? cx.arg_bool(2) : false;
  std::string x = cx.tensor(0);
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
  int64_t dim = norm_dim(cx.arg_int(1), cx.rank(0));
  cx.out(0, cx.emit1(op, {x}, {attr("axis", dim), attr("keepdims", static_cast<int64_t>(keep))}));
}
MXTS_LOWER(lower_argmax, "aten::argmax", "aten::argmin");

void lower_prod(Ctx& cx, const tj::Node*) {
  // prod(self, dtype) / prod(self, dim, keepdim, dtype)
  auto dt = cx.out_st();
  std::string x = cx.tensor_as(0, dt);
  if (cx.n_in() >= 3 && cx.in(1)->iv.isInt()) {
    int64_t d = norm_dim(cx.arg_int(1), cx.rank(0));
    cx.out(0, reduce(cx, "ReduceProd", x, {d}, cx.arg_bool(2)));
    return;
  }
  cx.out(0, reduce(cx, "ReduceProd", x, {}, false));
}
MXTS_LOWER(lower_prod, "aten::prod");

void lower_logsumexp(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_st();
  auto axes = dims_arg(cx, 1, cx.rank(0));
  cx.out(0, reduce(cx, "ReduceLogSumExp", cx.tensor_as(0, dt), axes, cx.n_in() > 2 && cx.arg_bool(2)));
}
MXTS_LOWER(lower_logsumexp, "aten::logsumexp");

void lower_all_any(Ctx& cx, const tj::Node* n) {
  bool all = std::string(n->kind().toQualString()) == "aten::all";
  std::string x = cx.tensor_as(0, at::kFloat);
  x = cx.cast(cx.cast(x, onnx::TensorProto::FLOAT, onnx::TensorProto::BOOL), onnx::TensorProto::BOOL,
              onnx::TensorProto::FLOAT);
  std::vector<int64_t> axes;
  bool keep = false;
  if (cx.n_in() >= 2 && !cx.is_none(1)) {
    axes = dims_arg(cx, 1, cx.rank(0));
    keep = cx.n_in() > 2 && cx.arg_bool(2);
  }
  std::string r = reduce(cx, all ? "ReduceMin" : "ReduceMax", x, axes, keep);
  cx.out(0, cx.cast(r, onnx::TensorProto::FLOAT, onnx_type_of(cx.out_st())));
}
MXTS_LOWER(lower_all_any, "aten::all", "aten::any");

// var/std: var(self, dim, unbiased|correction, keepdim), var(self, unbiased)
void lower_var(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  bool is_std = k == "aten::std";
  auto dt = cx.out_st();
  int64_t r = cx.rank(0);
  std::string x = cx.tensor_as(0, dt);
  std::vector<int64_t> axes;
  double corr = 1.0;
  bool keep = false;
  const auto& args = n->schema().arguments();
  for (size_t a = 1; a < args.size() && a < cx.n_in(); ++a) {
    const auto& nm = args[a].name();
    if (nm == "dim" && !cx.is_none(a)) axes = dims_arg(cx, a, r);
    else if (nm == "unbiased") corr = cx.arg_bool(a) ? 1.0 : 0.0;
    else if (nm == "correction" && !cx.is_none(a)) corr = cx.arg_double(a);
    else if (nm == "keepdim") keep = cx.arg_bool(a);
  }
  if (axes.empty())
    for (int64_t d = 0; d < r; ++d) axes.push_back(d);
  std::string mean = reduce(cx, "ReduceMean", x, axes, true);
  std::string d = cx.emit1("Sub", {x, mean});
  std::string v = reduce(cx, "ReduceMean", cx.emit1("Mul", {d, d}), axes, keep);
  if (corr != 0.0) {  // * N / (N - correction), N from the runtime shape
    std::string nn = cx.emit1(
        "ReduceProd", {cx.emit1("Gather", {cx.shape_of(x), cx.ci64(axes)}, {attr("axis", int64_t{0})})},
        {attr("keepdims", int64_t{0})});
    std::string nf = cx.cast_to(nn, onnx::TensorProto::INT64, dt);
    v = cx.emit1("Mul", {v, cx.emit1("Div", {nf, cx.emit1("Sub", {nf, cx.cscalar(corr, dt)})})});
  }
  cx.out(0, is_std ? cx.emit1("Sqrt", {v}) : v);
}
MXTS_LOWER(lower_var, "aten::var", "aten::std");

// norm(self, p, dim, keepdim) / linalg_vector_norm(self, ord, dim, keepdim, dtype) / frobenius_norm
void lower_norm(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  auto dt = cx.out_st();
  int64_t r = cx.rank(0);
  std::string x = cx.tensor_as(0, dt);
  double p = 2.0;
  std::vector<int64_t> axes;
  bool keep = false;
  const auto& args = n->schema().arguments();
  for (size_t a = 1; a < args.size() && a < cx.n_in(); ++a) {
    const auto& nm = args[a].name();
    if ((nm == "p" || nm == "ord") && !cx.is_none(a)) p = cx.arg_double(a);
    else if (nm == "dim" && !cx.is_none(a)) axes = dims_arg(cx, a, r);
    else if (nm == "keepdim") keep = cx.arg_bool(a);
  }
  std::string y;
  if (p == 2.0) y = reduce(cx, "ReduceL2", x, axes, keep);
  else if (p == 1.0) y = reduce(cx, "ReduceL1", x, axes, keep);
  else if (std::isinf(p)) y = reduce(cx, p > 0 ? "ReduceMax" : "ReduceMin", cx.emit1("Abs", {x}), axes, keep);
  else {
    std::string s =
        reduce(cx, "ReduceSum", cx.emit1("Pow", {cx.emit1("Abs", {x}), cx.cscalar(p, dt)}), axes, keep);
    y = cx.emit1("Pow", {s, cx.cscalar(1.0 / p, dt)});
  }
  cx.out(0, y);
}
MXTS_LOWER(lower_norm, "aten::norm", "aten::linalg_vector_norm", "aten::frobenius_norm");

}  // namespace
}  // namespace mx::torchscript
