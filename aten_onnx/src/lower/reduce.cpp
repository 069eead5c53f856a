// Reductions: mean/sum (dim lists, keepdim, dtype), nansum/nanmean, amax/amin,
// max/min over a dim (values + indices), argmax/argmin, cumsum, cumprod,
// var/std (and their _mean forms), prod, logsumexp, vector norms. var/std
// and the vector norms of a complex tensor (the pair layout of
// complex_pairs.hpp) are real: the squared moduli of the deviations, the
// norm of the moduli.
#include "mx/onnx_proto.hpp"

#include <climits>
#include <cmath>

#include "complex_pairs.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

std::vector<int64_t> axes_arg(OpContext& cx, int64_t rank) {
  auto d = cx.ints("dim", std::vector<int64_t>{});
  for (auto& x : d) x = norm_dim(x, rank);
  return d;
}

void lower_mean_sum(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t r = cx.rank_of("self");
  const bool mean = cx.target().rfind("aten.mean", 0) == 0;
  std::string x = cx.operand("self", dt);
  if (r == 0) return cx.out(0, cx.emit1("Identity", {x}));
  cx.out(0, mx::aten_onnx::emit_reduce(cx, mean ? "ReduceMean" : "ReduceSum", x, axes_arg(cx, r),
                                       cx.bool_arg("keepdim", false)));
}
MX_ATEN_LOWER(lower_mean_sum, "aten.mean", "aten.sum");

// nansum / nanmean(self, dim=None, keepdim=False, dtype=None): NaNs count
// as zeros in the sum and not at all in the mean's count.
void lower_nan_mean_sum(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t r = cx.rank_of("self");
  std::string x = cx.operand("self", dt);
  if (r == 0) {  // a 0-d NaN: 0 for nansum, NaN (0 / 0) for nanmean
    if (cx.op() == "nanmean") return cx.out(0, cx.emit1("Identity", {x}));
    return cx.out(0, cx.emit1("Where", {emit_is_nan(cx, x, dt), cx.cscalar(0, dt), x}));
  }
  const std::vector<int64_t> axes = axes_arg(cx, r);
  const bool keep = cx.bool_arg("keepdim", false);
  const std::string nan = emit_is_nan(cx, x, dt);
  const std::string sum =
      mx::aten_onnx::emit_reduce(cx, "ReduceSum", cx.emit1("Where", {nan, cx.cscalar(0, dt), x}), axes, keep);
  if (cx.op() == "nansum") return cx.out(0, sum);
  const std::string count = mx::aten_onnx::emit_reduce(
      cx, "ReduceSum", cx.cast(cx.emit1("Not", {nan}), onnx::TensorProto::BOOL, dt), axes, keep);
  cx.out(0, cx.emit1("Div", {sum, count}));
}
MX_ATEN_LOWER(lower_nan_mean_sum, "aten.nansum", "aten.nanmean");

void lower_amax(OpContext& cx) {
  const bool is_max = cx.target().rfind("aten.amax", 0) == 0;
  cx.out(0, mx::aten_onnx::emit_reduce(cx, is_max ? "ReduceMax" : "ReduceMin", cx.tensor("self"),
                                       axes_arg(cx, cx.rank_of("self")), cx.bool_arg("keepdim", false)));
}
MX_ATEN_LOWER(lower_amax, "aten.amax", "aten.amin");

// max.dim / min.dim -> (values, indices)
void lower_max_dim(OpContext& cx) {
  const bool is_max = cx.target().rfind("aten.max", 0) == 0;
  const int64_t dim = norm_dim(cx.int_arg("dim"), cx.rank_of("self"));
  const bool keep = cx.bool_arg("keepdim", false);
  std::string x = cx.tensor("self");
  cx.out(0, mx::aten_onnx::emit_reduce(cx, is_max ? "ReduceMax" : "ReduceMin", x, {dim}, keep));
  cx.out(1,
         cx.emit1(is_max ? "ArgMax" : "ArgMin", {x}, {attr("axis", dim), attr("keepdims", int64_t{keep})}));
}
MX_ATEN_LOWER(lower_max_dim, "aten.max.dim", "aten.min.dim");

// max() / min() of a whole tensor: a 0-d value.
void lower_max_all(OpContext& cx) {
  const bool is_max = cx.target().rfind("aten.max", 0) == 0;
  cx.out(0,
         cx.emit1(is_max ? "ReduceMax" : "ReduceMin", {cx.tensor("self")}, {attr("keepdims", int64_t{0})}));
}
MX_ATEN_LOWER(lower_max_all, "aten.max.default", "aten.min.default");

void lower_argmax(OpContext& cx) {
  const std::string op = cx.target().rfind("aten.argmax", 0) == 0 ? "ArgMax" : "ArgMin";
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
MX_ATEN_LOWER(lower_argmax, "aten.argmax", "aten.argmin");

void lower_cumsum(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t dim = norm_dim(cx.int_arg("dim"), cx.rank_of("self"));
  cx.out(0, cx.emit1("CumSum", {cx.operand("self", dt), cx.ci64s(dim)}));
}
MX_ATEN_LOWER(lower_cumsum, "aten.cumsum");

// any/all over dims: ReduceMax/ReduceMin of the truth values as int32
// (ONNX Runtime's reductions take no bool). A value is true when it is not
// zero, compared in its own dtype: cast to an integer first, 0.5 would be
// false. A bool input is its own truth value.
void lower_any_all(OpContext& cx) {
  const bool any = cx.target().rfind("aten.any", 0) == 0;
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  std::vector<int64_t> axes;
  if (cx.has("dim")) axes = cx.ints("dim");
  for (auto& a : axes) a = norm_dim(a, r);
  std::string truth = v.onnx;
  if (v.dtype != onnx::TensorProto::BOOL)
    truth = cx.emit1("Not", {cx.emit1("Equal", {v.onnx, cx.cscalar(0, v.dtype)})});
  const std::string x = cx.cast(truth, onnx::TensorProto::BOOL, onnx::TensorProto::INT32);
  std::string red =
      mx::aten_onnx::emit_reduce(cx, any ? "ReduceMax" : "ReduceMin", x, axes, cx.bool_arg("keepdim", false));
  cx.out(0, cx.cast(red, onnx::TensorProto::INT32, onnx::TensorProto::BOOL));
}
MX_ATEN_LOWER(lower_any_all, "aten.any", "aten.all");

// _is_all_true / _is_any_true(self): a bool tensor reduced to one 0-d bool
// (torch._check_tensor_all's condition), through int32 as any/all.
void lower_is_all_any_true(OpContext& cx) {
  const bool any = cx.op() == "_is_any_true";
  const Value& v = cx.value_of("self");
  if (v.dtype != onnx::TensorProto::BOOL) cx.unsupported(cx.op() + " of a tensor that is not bool");
  std::string x = cx.emit1("Reshape", {cx.cast(v.onnx, v.dtype, onnx::TensorProto::INT32), cx.ci64({-1})});
  // the empty reduction: all() is true, any() false
  const std::string neutral =
      cx.cast(cx.ci64({any ? 0 : 1}), onnx::TensorProto::INT64, onnx::TensorProto::INT32);
  x = cx.emit1("Concat", {x, neutral}, {attr("axis", int64_t{0})});
  const std::string red = cx.emit1(any ? "ReduceMax" : "ReduceMin", {x}, {attr("keepdims", int64_t{0})});
  cx.out(0, cx.cast(red, onnx::TensorProto::INT32, onnx::TensorProto::BOOL));
}
MX_ATEN_LOWER(lower_is_all_any_true, "aten._is_all_true", "aten._is_any_true");

// diff(self, n=1, dim=-1, prepend=None, append=None): prepend and append
// are concatenated first, then the first difference is taken n times, as
// ATen does (n past the dim's size leaves it empty, as ATen's clamp does;
// n = 0 is the input).
void lower_diff(OpContext& cx) {
  const int64_t n = cx.int_arg("n", 1);
  if (n < 0) cx.unsupported("diff with a negative n");
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
  if (n == 0) return cx.out(0, cx.emit1("Identity", {x}));
  for (int64_t k = 0; k < n; ++k) {
    std::string hi = cx.emit1("Slice", {x, cx.ci64({1}), cx.ci64({INT64_MAX}), cx.ci64({dim})});
    std::string lo = cx.emit1("Slice", {x, cx.ci64({0}), cx.ci64({-1}), cx.ci64({dim})});
    x = dt == onnx::TensorProto::BOOL ? cx.emit1("Xor", {hi, lo}) : cx.emit1("Sub", {hi, lo});
  }
  cx.out(0, x);
}
MX_ATEN_LOWER(lower_diff, "aten.diff");

// gradient(self, spacing=None, dim=None, edge_order=1) -> Tensor[]: the
// central differences (f[i+1] - f[i-1]) / 2h inside and one-sided ones of
// order edge_order at both ends, along each dim (all when None) with a
// uniform spacing h per dim (a number or one per dim). Coordinates as
// tensors are refused.
void lower_gradient(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const int32_t dt = v.dtype;
  if (!is_floating(dt)) cx.unsupported("gradient of an integer tensor");
  const ArgKind sk = cx.arg_kind("spacing");
  if (sk == ArgKind::tensors || sk == ArgKind::tensor)
    cx.unsupported("gradient with coordinate tensors as spacing (a number or a list of numbers is lowered)");
  std::vector<int64_t> dims;
  if (cx.has("dim")) dims = cx.ints("dim");
  for (auto& d : dims) d = norm_dim(d, r);
  if (dims.empty())
    for (int64_t d = 0; d < r; ++d) dims.push_back(d);
  std::vector<double> h(dims.size(), 1.0);
  if (sk == ArgKind::floats) {
    const std::vector<double> s = cx.floats("spacing");
    for (size_t k = 0; k < h.size(); ++k) h[k] = s.size() == 1 ? s[0] : s.at(k);
  } else if (sk != ArgKind::none) {
    std::fill(h.begin(), h.end(), cx.float_arg("spacing"));
  }
  const int64_t order = cx.int_arg("edge_order", 1);
  if (order != 1 && order != 2) cx.unsupported("gradient with edge_order " + std::to_string(order));
  std::vector<std::string> out;
  for (size_t k = 0; k < dims.size(); ++k) {
    const std::string axis = cx.ci64({dims[k]});
    auto s = [&](int64_t b, int64_t e) {
      return cx.emit1("Slice", {v.onnx, cx.ci64({b}), cx.ci64({e}), axis});
    };
    auto mul = [&](const std::string& x, double c) { return cx.emit1("Mul", {x, cx.cscalar(c, dt)}); };
    auto add = [&](const std::string& x, const std::string& y) { return cx.emit1("Add", {x, y}); };
    const std::string inv_h = cx.cscalar(1.0 / h[k], dt);
    const std::string center = mul(cx.emit1("Sub", {s(2, INT64_MAX), s(0, -2)}), 0.5 / h[k]);
    std::string first, last;
    if (order == 1) {
      first = cx.emit1("Mul", {cx.emit1("Sub", {s(1, 2), s(0, 1)}), inv_h});
      last = cx.emit1("Mul", {cx.emit1("Sub", {s(-1, INT64_MAX), s(-2, -1)}), inv_h});
    } else {
      first = cx.emit1("Mul", {add(add(mul(s(0, 1), -1.5), mul(s(1, 2), 2.0)), mul(s(2, 3), -0.5)), inv_h});
      last = cx.emit1(
          "Mul", {add(add(mul(s(-3, -2), 0.5), mul(s(-2, -1), -2.0)), mul(s(-1, INT64_MAX), 1.5)), inv_h});
    }
    out.push_back(cx.emit1("Concat", {first, center, last}, {attr("axis", dims[k])}));
  }
  cx.out_list(0, out);
}
MX_ATEN_LOWER(lower_gradient, "aten.gradient");

// trapezoid / trapz(y, dx=1 | x, dim=-1), as ATen computes it: with a
// spacing dx, (sum(y) - (y_first + y_last) / 2) * dx; with sample points x
// (1-D along dim, or broadcast from the trailing dims), the sum of
// (y_i + y_{i+1}) * (x_{i+1} - x_i) over 2. The end values are summed
// slices, so an empty dim gives zeros as ATen does. Integer y becomes the
// output's floating dtype first.
void lower_trapezoid(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t r = cx.rank_of("y");
  if (r == 0) cx.unsupported("trapezoid of a 0-d tensor");
  const int64_t d = norm_dim(cx.int_arg("dim", -1), r);
  const std::string y = cx.operand("y", dt);
  const auto slice = [&](const std::string& t, int64_t lo, int64_t hi) {
    return cx.emit1("Slice", {t, cx.ci64({lo}), cx.ci64({hi}), cx.ci64({d})});
  };
  const auto sum = [&](const std::string& t) {
    return mx::aten_onnx::emit_reduce(cx, "ReduceSum", t, {d}, false);
  };
  if (cx.arg_kind("x") != ArgKind::tensor) {
    const double dx = cx.has("dx") ? cx.float_arg("dx") : 1.0;
    const std::string ends = cx.emit1("Add", {sum(slice(y, 0, 1)), sum(slice(y, -1, INT64_MAX))});
    const std::string inner = cx.emit1("Sub", {sum(y), cx.emit1("Mul", {ends, cx.cscalar(0.5, dt)})});
    cx.out(0, cx.emit1("Mul", {inner, cx.cscalar(dx, dt)}));
    return;
  }
  std::string x = cx.operand("x", dt);
  const int64_t xr = cx.rank_of("x");
  if (xr == 1 && r > 1) {
    std::vector<int64_t> axes;
    for (int64_t k = 0; k < r; ++k)
      if (k != d) axes.push_back(k);
    x = cx.unsqueeze(x, axes);
  } else if (xr < r) {
    std::vector<int64_t> axes;
    for (int64_t k = 0; k < r - xr; ++k) axes.push_back(k);
    x = cx.unsqueeze(x, axes);
  } else if (xr > r) {
    cx.unsupported("trapezoid with x of higher rank than y");
  }
  const std::string dx = cx.emit1("Sub", {slice(x, 1, INT64_MAX), slice(x, 0, -1)});
  const std::string pairs = cx.emit1("Add", {slice(y, 0, -1), slice(y, 1, INT64_MAX)});
  cx.out(0, cx.emit1("Div", {sum(cx.emit1("Mul", {pairs, dx})), cx.cscalar(2.0, dt)}));
}
MX_ATEN_LOWER(lower_trapezoid, "aten.trapezoid", "aten.trapz");

// The dims a statistic reduces over: `dim` (int, list, or absent/None = all).
std::vector<int64_t> stat_axes(OpContext& cx, int64_t rank) {
  std::vector<int64_t> axes;
  if (cx.has("dim")) axes = cx.ints("dim");
  for (auto& a : axes) a = norm_dim(a, rank);
  if (axes.empty())
    for (int64_t k = 0; k < rank; ++k) axes.push_back(k);
  return axes;
}

// How many elements the reduction over `axes` sees, as a 0-d tensor of dt
// (static when every reduced dim is).
std::string count_of(OpContext& cx, const Value& v, const std::vector<int64_t>& axes, int32_t dt) {
  int64_t n = 1;
  bool dynamic = false;
  for (auto a : axes) {
    if (v.shape[a].is_static) n *= v.shape[a].value;
    else dynamic = true;
  }
  if (!dynamic) return cx.cscalar(static_cast<double>(n), dt);
  std::string dims = cx.emit1("Gather", {cx.shape_of(v.onnx), cx.ci64(axes)}, {attr("axis", int64_t{0})});
  return cx.cast(cx.emit1("ReduceProd", {dims}, {attr("keepdims", int64_t{0})}), onnx::TensorProto::INT64,
                 dt);
}

// var / std / var_mean / std_mean over `dim` with `correction` (or the
// older `unbiased`): the mean of squared deviations times N / (N - c).
void lower_var_std(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const bool is_std = cx.target().rfind("aten.std", 0) == 0;
  const bool with_mean = cx.target().find("_mean") != std::string::npos;
  const bool keep = cx.bool_arg("keepdim", false);
  double c = cx.bool_arg("unbiased", true) ? 1.0 : 0.0;
  if (cx.has("correction")) c = cx.float_arg("correction");
  const auto axes = stat_axes(cx, r);
  const bool complex = pairs::is_complex(v.dtype);
  const std::string x =
      complex ? cx.cast(v.onnx, pairs::component(v.dtype), dt) : cx.cast(v.onnx, v.dtype, dt);
  const std::string mean = mx::aten_onnx::emit_reduce(cx, "ReduceMean", x, axes, true);
  const std::string dev = cx.emit1("Sub", {x, mean});
  std::string sq = cx.emit1("Mul", {dev, dev});
  if (complex) sq = mx::aten_onnx::emit_reduce(cx, "ReduceSum", sq, {r}, false);  // |dev|^2
  std::string var = mx::aten_onnx::emit_reduce(cx, "ReduceMean", sq, axes, keep);
  if (c != 0.0) {
    const std::string n = count_of(cx, v, axes, dt);
    var = cx.emit1("Div", {cx.emit1("Mul", {var, n}), cx.emit1("Sub", {n, cx.cscalar(c, dt)})});
  }
  cx.out(0, is_std ? cx.emit1("Sqrt", {var}) : var);
  if (with_mean) cx.out(1, keep ? mean : cx.squeeze(mean, axes));
}
MX_ATEN_LOWER(lower_var_std, "aten.var", "aten.std", "aten.var_mean", "aten.std_mean", "complex.aten.var",
              "complex.aten.std");

// prod(self, dtype) / prod.dim_int(self, dim, keepdim, dtype)
void lower_prod(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t r = cx.rank_of("self");
  std::string x = cx.operand("self", dt);
  if (r == 0) return cx.out(0, cx.emit1("Identity", {x}));
  std::vector<int64_t> axes;
  if (cx.has("dim")) axes = {norm_dim(cx.int_arg("dim"), r)};
  cx.out(0, mx::aten_onnx::emit_reduce(cx, "ReduceProd", x, axes, cx.bool_arg("keepdim", false)));
}
MX_ATEN_LOWER(lower_prod, "aten.prod");

// cumprod(self, dim): ONNX has no CumProd. Along a static dim of up to 64
// the running product is built exactly from the slices; otherwise it is
// exp(cumsum(log|x|)) with the sign from the count of negatives and zero
// from the first zero on (float only; ~1e-6 relative in fp32).
std::string cumprod_by_logs(OpContext& cx, const std::string& x, int64_t d, int32_t dt) {
  if (!mx::aten_onnx::is_floating(dt)) cx.unsupported("cumprod of integers along a dynamic or long dim");
  const int32_t i64 = onnx::TensorProto::INT64;
  const std::string axis = cx.ci64s(d), zero = cx.cscalar(0, dt);
  auto count = [&](const std::string& flags) {
    return cx.emit1("CumSum", {cx.cast(flags, onnx::TensorProto::BOOL, i64), axis});
  };
  const std::string is_zero = cx.emit1("Equal", {x, zero});
  const std::string safe = cx.emit1("Where", {is_zero, cx.cscalar(1, dt), cx.emit1("Abs", {x})});
  const std::string mag = cx.emit1("Exp", {cx.emit1("CumSum", {cx.emit1("Log", {safe}), axis})});
  const std::string negatives = count(cx.emit1("Less", {x, zero}));
  const std::string odd = cx.emit1("Equal", {cx.emit1("Mod", {negatives, cx.ci64s(2)}), cx.ci64s(1)});
  const std::string signed_mag = cx.emit1("Where", {odd, cx.emit1("Neg", {mag}), mag});
  const std::string zeroed = cx.emit1("Greater", {count(is_zero), cx.ci64s(0)});
  return cx.emit1("Where", {zeroed, zero, signed_mag});
}

void lower_cumprod(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  std::string x = cx.cast(v.onnx, v.dtype, dt);
  if (r == 0) return cx.out(0, cx.emit1("Identity", {x}));
  const int64_t d = norm_dim(cx.int_arg("dim"), r);
  if (!v.shape[d].is_static || v.shape[d].value > 64) return cx.out(0, cumprod_by_logs(cx, x, d, dt));
  const int64_t n = v.shape[d].value;
  std::vector<std::string> parts;
  std::string acc;
  for (int64_t k = 0; k < n; ++k) {
    std::string s = cx.emit1("Slice", {x, cx.ci64({k}), cx.ci64({k + 1}), cx.ci64({d})});
    acc = acc.empty() ? s : cx.emit1("Mul", {acc, s});
    parts.push_back(acc);
  }
  cx.out(0,
         parts.size() == 1 ? cx.emit1("Identity", {parts[0]}) : cx.emit1("Concat", parts, {attr("axis", d)}));
}
MX_ATEN_LOWER(lower_cumprod, "aten.cumprod");

// logsumexp(self, dim, keepdim): max-shifted for range, as ATen.
void lower_logsumexp(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const bool keep = cx.bool_arg("keepdim", false);
  const auto axes = stat_axes(cx, r);
  const std::string x = cx.cast(v.onnx, v.dtype, dt);
  std::string m = mx::aten_onnx::emit_reduce(cx, "ReduceMax", x, axes, true);
  // an all -inf slice would give NaN from -inf - -inf: shift by 0 there.
  m = cx.emit1("Where", {emit_is_inf(cx, m, dt), cx.cscalar(0, dt), m});
  std::string s =
      mx::aten_onnx::emit_reduce(cx, "ReduceSum", cx.emit1("Exp", {cx.emit1("Sub", {x, m})}), axes, keep);
  cx.out(0, cx.emit1("Add", {cx.emit1("Log", {s}), keep ? m : cx.squeeze(m, axes)}));
}
MX_ATEN_LOWER(lower_logsumexp, "aten.logsumexp");

// The p-norm over stat_axes: ord 1 / 2 / inf / -inf / 0 / p, shared by
// linalg_vector_norm(self, ord=2, dim=None, keepdim=False, dtype=None),
// norm.ScalarOpt_dim, frobenius_norm (ord 2) and linalg_norm.
void emit_p_norm(OpContext& cx, double p) {
  const int32_t dt = cx.out_dtype();
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const bool keep = cx.bool_arg("keepdim", false);
  const auto axes = stat_axes(cx, r);
  using mx::aten_onnx::emit_reduce;
  std::string x;
  if (pairs::is_complex(v.dtype)) {
    const std::string z = cx.cast(v.onnx, pairs::component(v.dtype), dt);
    x = cx.squeeze(pairs::modulus(cx, pairs::part(cx, z, 0), pairs::part(cx, z, 1), dt), {r});
  } else if (p == 2.0) {
    // sqrt(sum(x * x)) in one node, as torch.onnx writes F.normalize's norm
    return cx.out(0, emit_reduce(cx, "ReduceL2", cx.cast(v.onnx, v.dtype, dt), axes, keep));
  } else {
    x = cx.emit1("Abs", {cx.cast(v.onnx, v.dtype, dt)});
  }
  if (p == 1.0) return cx.out(0, emit_reduce(cx, "ReduceSum", x, axes, keep));
  if (p == 2.0)
    return cx.out(0, cx.emit1("Sqrt", {emit_reduce(cx, "ReduceSum", cx.emit1("Mul", {x, x}), axes, keep)}));
  if (std::isinf(p)) return cx.out(0, emit_reduce(cx, p > 0 ? "ReduceMax" : "ReduceMin", x, axes, keep));
  if (p == 0.0) {
    const std::string nz =
        cx.cast(cx.emit1("Not", {cx.emit1("Equal", {x, cx.cscalar(0, dt)})}), onnx::TensorProto::BOOL, dt);
    return cx.out(0, emit_reduce(cx, "ReduceSum", nz, axes, keep));
  }
  const std::string s = emit_reduce(cx, "ReduceSum", cx.emit1("Pow", {x, cx.cscalar(p, dt)}), axes, keep);
  cx.out(0, cx.emit1("Pow", {s, cx.cscalar(1.0 / p, dt)}));
}
void lower_vector_norm(OpContext& cx) {
  emit_p_norm(cx, cx.has("ord") ? cx.float_arg("ord") : (cx.has("p") ? cx.float_arg("p") : 2.0));
}
MX_ATEN_LOWER(lower_vector_norm, "aten.linalg_vector_norm", "aten.norm", "aten.frobenius_norm",
              "complex.aten.linalg_vector_norm");

// linalg_norm(self, ord=None, dim=None, keepdim=False, dtype=None) and its
// .ord_str overload: without ord, or with 'fro', the 2-norm of the elements
// over dim (a vector, a matrix's Frobenius norm, or the whole tensor); a
// numeric ord over one dim is that vector norm. Matrix norms with a
// numeric ord (spectral, nuclear, max row or column sums) are not lowered.
void lower_linalg_norm(OpContext& cx) {
  const int64_t r = cx.rank_of("self");
  const size_t n_dims = cx.has("dim") ? cx.ints("dim").size() : static_cast<size_t>(r);
  if (cx.arg_kind("ord") == ArgKind::string) {
    const std::string ord = cx.string_arg("ord", "fro");
    if (ord != "fro") cx.unsupported("linalg_norm with ord='" + ord + "'");
    return emit_p_norm(cx, 2.0);
  }
  if (!cx.has("ord")) return emit_p_norm(cx, 2.0);
  if (n_dims != 1) cx.unsupported("a matrix norm with a numeric ord");
  emit_p_norm(cx, cx.float_arg("ord"));
}
MX_ATEN_LOWER(lower_linalg_norm, "aten.linalg_norm");

// linalg_matrix_norm(self, ord='fro', dim=[-2, -1], keepdim=False,
// dtype=None): the Frobenius norm over the two dims. The numeric ords
// (1, -1, inf, -inf: column or row sums; 2, -2, 'nuc': singular values)
// are not lowered.
void lower_matrix_norm(OpContext& cx) {
  const std::string ord = cx.arg_kind("ord") == ArgKind::string ? cx.string_arg("ord", "fro") : "";
  if (cx.has("ord") && ord != "fro")
    cx.unsupported("linalg_matrix_norm with ord " + (ord.empty() ? std::string("numeric") : "'" + ord + "'"));
  const int32_t dt = cx.out_dtype();
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  std::vector<int64_t> axes = cx.ints("dim", std::vector<int64_t>{-2, -1});
  for (auto& a : axes) a = norm_dim(a, r);
  const std::string x = cx.cast(v.onnx, v.dtype, dt);
  cx.out(0, cx.emit1("Sqrt", {mx::aten_onnx::emit_reduce(cx, "ReduceSum", cx.emit1("Mul", {x, x}), axes,
                                                         cx.bool_arg("keepdim", false))}));
}
MX_ATEN_LOWER(lower_matrix_norm, "aten.linalg_matrix_norm");

// count_nonzero(self, dim=None) / .dim_IntList(self, dim): the int64 sum
// of (self != 0) over dim (every dim when None or empty).
void lower_count_nonzero(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const auto axes = stat_axes(cx, static_cast<int64_t>(v.shape.size()));
  const std::string nonzero = cx.emit1("Not", {cx.emit1("Equal", {v.onnx, cx.cscalar(0, v.dtype)})});
  const std::string ones = cx.cast(nonzero, onnx::TensorProto::BOOL, onnx::TensorProto::INT64);
  cx.out(0, mx::aten_onnx::emit_reduce(cx, "ReduceSum", ones, axes, false));
}
MX_ATEN_LOWER(lower_count_nonzero, "aten.count_nonzero");

// aminmax(self, dim=None, keepdim=False) -> (min, max)
void lower_aminmax(OpContext& cx) {
  const int64_t r = cx.rank_of("self");
  std::vector<int64_t> axes;
  if (cx.has("dim")) axes = {norm_dim(cx.int_arg("dim"), std::max<int64_t>(r, 1))};
  const bool keep = cx.bool_arg("keepdim", false);
  const std::string x = cx.tensor("self");
  cx.out(0, mx::aten_onnx::emit_reduce(cx, "ReduceMin", x, axes, keep));
  cx.out(1, mx::aten_onnx::emit_reduce(cx, "ReduceMax", x, axes, keep));
}
MX_ATEN_LOWER(lower_aminmax, "aten.aminmax");

// kthvalue(self, k, dim=-1, keepdim=False) and median.dim(self, dim,
// keepdim) (the lower median: k = (n - 1) / 2 + 1, from the dim's size at
// run time when it is dynamic) -> (values, indices): the k smallest by
// TopK, the last of them.
void lower_kth(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const int64_t d = norm_dim(cx.int_arg("dim", -1), std::max<int64_t>(r, 1));
  if (r == 0) cx.unsupported("kthvalue or median.dim of a 0-d tensor");
  std::string k;  // 0-d int64
  if (cx.target().rfind("aten.median", 0) == 0) {
    if (v.shape[d].is_static) {
      k = cx.ci64s((v.shape[d].value - 1) / 2 + 1);
    } else {
      const std::string n = cx.dim_size(v.onnx, d);
      k = cx.emit1("Add", {cx.emit1("Div", {cx.emit1("Sub", {n, cx.ci64s(1)}), cx.ci64s(2)}), cx.ci64s(1)});
    }
  } else {
    k = cx.ci64s(cx.int_arg("k"));
  }
  const auto top = mx::aten_onnx::emit_top_k(cx, v.onnx, v.dtype, r, cx.unsqueeze(k, {0}), d, false);
  const std::string last_index = cx.emit1("Sub", {k, cx.ci64s(1)});
  auto last = [&](const std::string& t) {
    const std::string s = cx.emit1("Gather", {t, last_index}, {attr("axis", d)});
    return cx.bool_arg("keepdim", false) ? cx.unsqueeze(s, {d}) : s;
  };
  cx.out(0, last(top.values));
  cx.out(1, last(top.indices));
}
MX_ATEN_LOWER(lower_kth, "aten.kthvalue", "aten.median.dim");

// The lower median along d of x (rank r; keepdim results): the element at
// (count - 1) / 2 of the sorted values. skip_nan (nanmedian): NaNs sort
// last as +inf and are not counted; NaN where all are.
TopKResult lower_median(OpContext& cx, const std::string& x0, int32_t dtype, int64_t r, int64_t d,
                        int64_t static_size, bool skip_nan) {
  const bool nans = skip_nan && is_floating(dtype);  // an integer tensor has no NaN
  const std::string nan = nans ? emit_is_nan(cx, x0, dtype) : std::string();
  const std::string x = nans ? cx.emit1("Where", {nan, cx.cscalar(INFINITY, dtype), x0}) : x0;
  const auto sorted = mx::aten_onnx::emit_sort(cx, x, dtype, r, d, static_size, false);
  const std::string count =
      nans
          ? mx::aten_onnx::emit_reduce(
                cx, "ReduceSum",
                cx.cast(cx.emit1("Not", {nan}), onnx::TensorProto::BOOL, onnx::TensorProto::INT64), {d}, true)
          : cx.dim_size(x, d);
  // (count - 1) / 2, 0 when all are NaN
  std::string at =
      cx.emit1("Div", {cx.emit1("Max", {cx.emit1("Sub", {count, cx.ci64s(1)}), cx.ci64s(0)}), cx.ci64s(2)});
  // GatherElements wants the index at the values' rank (x's shape, 1 along
  // d), as the NaN count has it already.
  if (!nans)
    at = cx.emit1("Expand", {at, cx.emit1("ScatterElements", {cx.shape_of(x), cx.ci64({d}), cx.ci64({1})},
                                          {attr("axis", int64_t{0})})});
  auto take = [&](const std::string& t) { return cx.emit1("GatherElements", {t, at}, {attr("axis", d)}); };
  TopKResult out{take(sorted.values), take(sorted.indices)};
  if (nans)
    out.values =
        cx.emit1("Where", {cx.emit1("Equal", {count, cx.ci64s(0)}), cx.cscalar(NAN, dtype), out.values});
  return out;
}

// nanmedian.dim(self, dim, keepdim=False) -> (values, indices): the lower
// median of the values that are not NaN (NaN where all are).
void lower_nanmedian_dim(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  if (r == 0) cx.unsupported("nanmedian.dim of a 0-d tensor");
  const int64_t d = norm_dim(cx.int_arg("dim", -1), r);
  const auto m = lower_median(cx, v.onnx, v.dtype, r, d, v.shape[d].is_static ? v.shape[d].value : -1, true);
  const bool keep = cx.bool_arg("keepdim", false);
  cx.out(0, keep ? m.values : cx.squeeze(m.values, {d}));
  cx.out(1, keep ? m.indices : cx.squeeze(m.indices, {d}));
}
MX_ATEN_LOWER(lower_nanmedian_dim, "aten.nanmedian.dim");

// median.default / nanmedian.default(self) -> 0-d: the lower median of all
// elements (nanmedian: of those that are not NaN).
void lower_median_all(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const std::string flat = cx.emit1("Reshape", {v.onnx, cx.ci64({-1})});
  int64_t n = 1;
  for (const Dim& d : v.shape) n = (n >= 0 && d.is_static) ? n * d.value : -1;
  const auto m = lower_median(cx, flat, v.dtype, 1, 0, n, cx.op() == "nanmedian");
  cx.out(0, cx.squeeze(m.values, {0}));
}
MX_ATEN_LOWER(lower_median_all, "aten.median.default", "aten.nanmedian.default");

// logcumsumexp(self, dim): log of the running sum of exp, shifted by the
// dim's maximum for range.
void lower_logcumsumexp(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t r = std::max<int64_t>(cx.rank_of("self"), 1);
  const int64_t d = norm_dim(cx.int_arg("dim"), r);
  const std::string x = cx.operand("self", dt);
  std::string m = mx::aten_onnx::emit_reduce(cx, "ReduceMax", x, {d}, true);
  m = cx.emit1("Where", {emit_is_inf(cx, m, dt), cx.cscalar(0, dt), m});
  const std::string c = cx.emit1("CumSum", {cx.emit1("Exp", {cx.emit1("Sub", {x, m})}), cx.ci64s(d)});
  cx.out(0, cx.emit1("Add", {cx.emit1("Log", {c}), m}));
}
MX_ATEN_LOWER(lower_logcumsumexp, "aten.logcumsumexp");

}  // namespace
}  // namespace mx::aten_onnx
