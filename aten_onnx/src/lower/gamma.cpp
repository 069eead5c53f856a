// The gamma family ONNX has no op for, written out from elementwise ops:
//
//   lgamma, special_gammaln  for x >= 1/2: shifted up by the recurrence
//                  lgamma(x) = lgamma(x + m) - log(x (x+1) ... (x+m-1)) until
//                  x + m >= 8 (13 in double), then Stirling's series
//                  (x - 1/2) log x - x + log(2 pi) / 2 + sum B2k / (2k (2k-1) x^(2k-1))
//                  with 4 (8) terms; below 1/2 the reflection
//                  log(pi) - log|sin(pi x)| - lgamma(1 - x), sin(pi x) taken
//                  of x - round(x) (exact). inf at 0, at the negative
//                  integers and at +-inf, as ATen.
//   digamma, special_digamma, special_psi  psi(x) = psi(x + m) - sum 1/(x+k)
//                  with m = 8 (12), then the asymptotic series
//                  log x - 1/(2x) - sum B2k / (2k x^2k); below 0 the
//                  reflection psi(1 - x) - pi / tan(pi x). -inf at +0, +inf at
//                  -0, NaN at the negative integers and -inf, as ATen.
//   polygamma(n), special_polygamma  n = 0 is digamma; n >= 1 is
//                  (-1)^(n+1) n! zeta(n+1, x): the sum of 1/(x+k)^(n+1) over
//                  m = n + 10 (n + 12) terms, then the Hurwitz zeta's
//                  Euler-Maclaurin tail; below 0 the reflection
//                  psi_n(x) = (-1)^n psi_n(1 - x) - pi^(n+1) P_n(cot(pi x)),
//                  P_0 = c, P_(k+1) = -(1 + c^2) P_k'(c) (the derivatives of
//                  cot). At 0 and the negative integers +inf for odd n, -inf
//                  for even n (ATen's zeta pole). ATen's float trigamma at a
//                  negative integer is a large finite number from the
//                  rounding of its sin(pi x); this gives +inf there.
//   mvlgamma(p), special_multigammaln  sum of lgamma(x - i/2), i < p, plus
//                  p (p - 1) / 4 log(pi). ATen raises where x <= (p - 1) / 2;
//                  an exported program cannot, and gives the sum there.
//
// lgamma and mvlgamma compute in double for every input type (see
// lower_lgamma); the others in double for a double input, in float32
// otherwise (halves and integers promoted, as ATen's kernels compute them).
// Away from the function's zeros the relative error is a few units in the
// last place of the compute type times the number of terms (~1e-6 in
// float); near a zero (digamma at 1.4616..., lgamma of a double near 1, 2
// and between the negative integers) the error is absolute, a few ulps of
// the terms cancelling there. Near the poles the value is as steep as the
// function.
#include "mx/onnx_proto.hpp"

#include <cmath>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int32_t kDouble = onnx::TensorProto::DOUBLE;

// B2, B4, ..., B30
constexpr double kBernoulli[] = {1.0 / 6,
                                 -1.0 / 30,
                                 1.0 / 42,
                                 -1.0 / 30,
                                 5.0 / 66,
                                 -691.0 / 2730,
                                 7.0 / 6,
                                 -3617.0 / 510,
                                 43867.0 / 798,
                                 -174611.0 / 330,
                                 854513.0 / 138,
                                 -236364091.0 / 2730,
                                 8553103.0 / 6,
                                 -23749461029.0 / 870,
                                 8615841276005.0 / 14322};
constexpr int kMaxOrder = 30;

int32_t compute_dtype(int32_t out) {
  return out == kDouble ? kDouble : kFloat;
}

// c[0] + c[1] t + c[2] t^2 + ...
std::string polynomial(OpContext& cx, const std::string& t, const std::vector<double>& c, int32_t dt) {
  std::string p = cx.cscalar(c.back(), dt);
  for (size_t i = c.size() - 1; i-- > 0;)
    p = cx.emit1("Add", {cx.emit1("Mul", {p, t}), cx.cscalar(c[i], dt)});
  return p;
}

// x - round(x): exact, sin / tan of pi times it are those of pi x.
std::string frac_near(OpContext& cx, const std::string& x) {
  return cx.emit1("Sub", {x, cx.emit1("Round", {x})});
}

// lgamma(z) for z >= 1/2 (or NaN)
std::string lgamma_right(OpContext& cx, const std::string& z0, int32_t dt) {
  const bool dbl = dt == kDouble;
  const double threshold = dbl ? 13 : 8;
  const std::string thr = cx.cscalar(threshold, dt), one = cx.cscalar(1, dt);
  std::string z = z0, p = one;
  for (int k = 0; k < static_cast<int>(threshold); ++k) {
    const std::string small = cx.emit1("Less", {z, thr});
    p = cx.emit1("Where", {small, cx.emit1("Mul", {p, z}), p});
    z = cx.emit1("Where", {small, cx.emit1("Add", {z, one}), z});
  }
  const int terms = dbl ? 8 : 4;
  const std::string r = cx.emit1("Reciprocal", {z});
  std::vector<double> c;  // the series in r^2, times r
  for (int k = 1; k <= terms; ++k) c.push_back(kBernoulli[k - 1] / (2.0 * k * (2.0 * k - 1)));
  const std::string series = cx.emit1("Mul", {polynomial(cx, cx.emit1("Mul", {r, r}), c, dt), r});
  const std::string main = cx.emit1(
      "Sub", {cx.emit1("Mul", {cx.emit1("Sub", {z, cx.cscalar(0.5, dt)}), cx.emit1("Log", {z})}), z});
  const std::string stirling =
      cx.emit1("Add", {cx.emit1("Add", {main, cx.cscalar(0.5 * std::log(2 * M_PI), dt)}), series});
  return cx.emit1("Sub", {stirling, cx.emit1("Log", {p})});
}

std::string lgamma_of(OpContext& cx, const std::string& x, int32_t dt) {
  const std::string left = cx.emit1("Less", {x, cx.cscalar(0.5, dt)});
  const std::string z = cx.emit1("Where", {left, cx.emit1("Sub", {cx.cscalar(1, dt), x}), x});
  const std::string right = lgamma_right(cx, z, dt);
  const std::string sin =
      cx.emit1("Abs", {cx.emit1("Sin", {cx.emit1("Mul", {frac_near(cx, x), cx.cscalar(M_PI, dt)})})});
  const std::string reflected =
      cx.emit1("Sub", {cx.emit1("Sub", {cx.cscalar(std::log(M_PI), dt), cx.emit1("Log", {sin})}), right});
  const std::string y = cx.emit1("Where", {left, reflected, right});
  return cx.emit1("Where", {emit_is_inf(cx, x, dt), cx.cscalar(INFINITY, dt), y});
}

// psi(z) for z >= 0 (-0 included), by the recurrence from z + m
std::string digamma_right(OpContext& cx, const std::string& z, int32_t dt) {
  const bool dbl = dt == kDouble;
  const int m = dbl ? 12 : 8, terms = dbl ? 8 : 4;
  std::string sum;
  for (int k = 0; k < m; ++k) {
    const std::string zk = k == 0 ? z : cx.emit1("Add", {z, cx.cscalar(k, dt)});
    const std::string t = cx.emit1("Reciprocal", {zk});
    sum = sum.empty() ? t : cx.emit1("Add", {sum, t});
  }
  const std::string w = cx.emit1("Add", {z, cx.cscalar(m, dt)});
  const std::string r = cx.emit1("Reciprocal", {w});
  const std::string r2 = cx.emit1("Mul", {r, r});
  std::vector<double> c;
  for (int k = 1; k <= terms; ++k) c.push_back(kBernoulli[k - 1] / (2.0 * k));
  const std::string series = cx.emit1("Mul", {polynomial(cx, r2, c, dt), r2});
  const std::string asym = cx.emit1(
      "Sub", {cx.emit1("Sub", {cx.emit1("Log", {w}), cx.emit1("Mul", {r, cx.cscalar(0.5, dt)})}), series});
  return cx.emit1("Sub", {asym, sum});
}

std::string digamma_of(OpContext& cx, const std::string& x, int32_t dt) {
  const std::string left = cx.emit1("Less", {x, cx.cscalar(0, dt)});
  const std::string z = cx.emit1("Where", {left, cx.emit1("Sub", {cx.cscalar(1, dt), x}), x});
  const std::string right = digamma_right(cx, z, dt);
  // pi / tan(pi x) as pi cos / sin (ONNX Runtime has no double Tan)
  const std::string pr = cx.emit1("Mul", {frac_near(cx, x), cx.cscalar(M_PI, dt)});
  const std::string cot = cx.emit1("Div", {cx.emit1("Cos", {pr}), cx.emit1("Sin", {pr})});
  const std::string reflected = cx.emit1("Sub", {right, cx.emit1("Mul", {cx.cscalar(M_PI, dt), cot})});
  const std::string pole = cx.emit1("And", {left, cx.emit1("Equal", {x, cx.emit1("Round", {x})})});
  return cx.emit1("Where", {pole, cx.cscalar(NAN, dt), cx.emit1("Where", {left, reflected, right})});
}

// psi_n(x), n >= 1
std::string polygamma_of(OpContext& cx, int64_t n, const std::string& x, int32_t dt) {
  const bool dbl = dt == kDouble;
  const double s = static_cast<double>(n + 1);
  const int m = static_cast<int>(n) + (dbl ? 12 : 10);
  const std::string left = cx.emit1("Less", {x, cx.cscalar(0, dt)});
  const std::string z = cx.emit1("Where", {left, cx.emit1("Sub", {cx.cscalar(1, dt), x}), x});
  const std::string neg_s = cx.cscalar(-s, dt);
  std::string sum;
  for (int k = 0; k < m; ++k) {
    const std::string zk = k == 0 ? z : cx.emit1("Add", {z, cx.cscalar(k, dt)});
    const std::string t = cx.emit1("Pow", {zk, neg_s});
    sum = sum.empty() ? t : cx.emit1("Add", {sum, t});
  }
  // zeta(s, w) - the sum = w^(1-s) / (s-1) + w^-s / 2 + sum_k B2k / (2k)! (s)_(2k-1) w^(-s-2k+1)
  const std::string w = cx.emit1("Add", {z, cx.cscalar(m, dt)});
  const std::string r = cx.emit1("Reciprocal", {w});
  const std::string r2 = cx.emit1("Mul", {r, r});
  std::vector<double> c = {1.0 / (s - 1), 0.5};  // in powers of r: r^0, r^1, then r^(2k-1)... below
  // tail = w^(1-s) [1/(s-1) + r/2 + sum_k c_k r^(2k)], c_k = B2k (s)_(2k-1) / (2k)!
  std::vector<double> even;  // coefficient of r^(2k), k >= 1
  double rising = 1, fact = 1;
  const double eps = dbl ? 1e-18 : 1e-9;
  const double w_min = static_cast<double>(m);
  for (int k = 1; k <= 15; ++k) {
    rising *= (k == 1) ? s : (s + 2 * k - 3) * (s + 2 * k - 2);
    fact *= (2.0 * k - 1) * (2.0 * k);
    const double ck = kBernoulli[k - 1] * rising / fact;
    even.push_back(ck);
    if (std::abs(ck) * (s - 1) / std::pow(w_min, 2 * k) < eps) break;
  }
  const std::string in_r2 = cx.emit1("Mul", {polynomial(cx, r2, even, dt), r2});
  const std::string bracket = cx.emit1(
      "Add", {cx.emit1("Add", {cx.cscalar(c[0], dt), cx.emit1("Mul", {r, cx.cscalar(c[1], dt)})}), in_r2});
  const std::string tail = cx.emit1("Mul", {cx.emit1("Pow", {w, cx.cscalar(1 - s, dt)}), bracket});
  double nfact = 1;
  for (int64_t i = 2; i <= n; ++i) nfact *= static_cast<double>(i);
  const double sign = n % 2 ? 1.0 : -1.0;
  const std::string right = cx.emit1("Mul", {cx.emit1("Add", {sum, tail}), cx.cscalar(sign * nfact, dt)});
  // reflection: (-1)^n psi_n(1 - x) - pi^(n+1) P_n(cot(pi x))
  std::vector<double> poly = {0, 1};  // P_0 = c
  for (int64_t k = 0; k < n; ++k) {
    std::vector<double> d(poly.size() > 1 ? poly.size() - 1 : 1, 0);
    for (size_t i = 1; i < poly.size(); ++i) d[i - 1] = poly[i] * static_cast<double>(i);
    std::vector<double> next(d.size() + 2, 0);
    for (size_t i = 0; i < d.size(); ++i) next[i] -= d[i], next[i + 2] -= d[i];
    poly = next;
  }
  const std::string pr = cx.emit1("Mul", {frac_near(cx, x), cx.cscalar(M_PI, dt)});
  const std::string cot = cx.emit1("Div", {cx.emit1("Cos", {pr}), cx.emit1("Sin", {pr})});
  const std::string reflected =
      cx.emit1("Sub", {cx.emit1("Mul", {right, cx.cscalar(n % 2 ? -1.0 : 1.0, dt)}),
                       cx.emit1("Mul", {polynomial(cx, cot, poly, dt), cx.cscalar(std::pow(M_PI, s), dt)})});
  std::string y = cx.emit1("Where", {left, reflected, right});
  // poles (0, the negative integers) and -inf: zeta's inf times the sign;
  // +inf: 0 for n = 1 (ATen's trigamma), NaN beyond (its zeta)
  const std::string pole = cx.emit1("Or", {cx.emit1("And", {cx.emit1("LessOrEqual", {x, cx.cscalar(0, dt)}),
                                                            cx.emit1("Equal", {x, cx.emit1("Round", {x})})}),
                                           emit_is_inf(cx, x, dt, false, true)});
  const bool trigamma = n == 1;
  y = cx.emit1("Where", {pole, cx.cscalar(trigamma ? INFINITY : sign * INFINITY, dt), y});
  if (trigamma)  // ATen's trigamma: NaN at -inf
    y = cx.emit1("Where", {emit_is_inf(cx, x, dt, false, true), cx.cscalar(NAN, dt), y});
  return cx.emit1("Where", {emit_is_inf(cx, x, dt, true, false), cx.cscalar(trigamma ? 0.0 : NAN, dt), y});
}

// lgamma computes in double whatever the input: in float its recurrence and
// reflection cancel near the zeros (1, 2, and one between each pair of
// negative integers), where ATen's float lgamma keeps its relative precision.
void lower_lgamma(OpContext& cx) {
  const int32_t out = cx.out_dtype(), dt = kDouble;
  cx.out(0, cx.cast(lgamma_of(cx, cx.operand("self", dt), dt), dt, out));
}
MX_ATEN_LOWER(lower_lgamma, "aten.lgamma", "aten.lgamma_", "aten.special_gammaln");

void lower_digamma(OpContext& cx) {
  const int32_t out = cx.out_dtype(), dt = compute_dtype(out);
  cx.out(0, cx.cast(digamma_of(cx, cx.operand("self", dt), dt), dt, out));
}
MX_ATEN_LOWER(lower_digamma, "aten.digamma", "aten.digamma_", "aten.special_digamma", "aten.special_psi");

void lower_polygamma(OpContext& cx) {
  const int32_t out = cx.out_dtype(), dt = compute_dtype(out);
  const int64_t n = cx.int_arg("n");
  if (n < 0) cx.unsupported(cx.op() + " of negative order " + std::to_string(n));
  if (n > kMaxOrder)
    cx.unsupported(cx.op() + " of order " + std::to_string(n) +
                   " (the series are written for n <= " + std::to_string(kMaxOrder) + ")");
  const std::string x = cx.operand("self", dt);
  cx.out(0, cx.cast(n == 0 ? digamma_of(cx, x, dt) : polygamma_of(cx, n, x, dt), dt, out));
}
MX_ATEN_LOWER(lower_polygamma, "aten.polygamma", "aten.polygamma_", "aten.special_polygamma");

void lower_mvlgamma(OpContext& cx) {
  const int32_t out = cx.out_dtype(), dt = kDouble;  // as lgamma
  const int64_t p = cx.int_arg("p");
  if (p < 1) cx.unsupported(cx.op() + " with p < 1");
  const std::string x = cx.operand("self", dt);
  std::string sum;
  for (int64_t i = 0; i < p; ++i) {
    const std::string xi = i == 0 ? x : cx.emit1("Sub", {x, cx.cscalar(0.5 * static_cast<double>(i), dt)});
    const std::string l = lgamma_of(cx, xi, dt);
    sum = sum.empty() ? l : cx.emit1("Add", {sum, l});
  }
  const double c = static_cast<double>(p) * static_cast<double>(p - 1) / 4.0 * std::log(M_PI);
  cx.out(0, cx.cast(cx.emit1("Add", {sum, cx.cscalar(c, dt)}), dt, out));
}
MX_ATEN_LOWER(lower_mvlgamma, "aten.mvlgamma", "aten.mvlgamma_", "aten.special_multigammaln");

}  // namespace
}  // namespace mx::aten_onnx
