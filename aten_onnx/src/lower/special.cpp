// Special functions ONNX has no op for, written out with the accuracy
// of ATen's own kernels (whose float kernels compute in float too):
//
//   special_erfcx  exp(x^2) erfc(x). For x >= 0, erfcx = t exp(g(s)) with
//                  t = 2 / (2 + x) and g a Chebyshev series in s = 2t - 1
//                  (the form of Numerical Recipes' erfc), which covers the
//                  whole half-line: x -> inf is t -> 0, where erfcx falls
//                  as 1 / (sqrt(pi) x). Below 0, 2 exp(x^2) - erfcx(-x)
//                  (no cancellation: the first term is at least 2, the
//                  second at most 1), inf where exp(x^2) overflows, as in ATen.
//   erfc, special_ndtr  from erfcx: erfc(x) = exp(-x^2) erfcx(x) for x >= 0,
//                  2 minus that below (the tails relative, not 1 - erf).
//   erf            ONNX's Erf; in double (ONNX Runtime has it in float only)
//                  Cephes' rational form on |x| <= 1, 1 - erfc beyond.
//   log1p          Goldberg's exact form (Log(1 + u) loses u's digits).
//   special_log_ndtr  log(Phi(x)) as ATen computes it: below x = -1 in log
//                  space, log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 (no
//                  underflow however far the tail); above, log1p(-erfc(x /
//                  sqrt 2) / 2) with erfc from erfcx (full relative
//                  precision of the tail) and an exact log1p.
//   special_xlog1py  x log1p(y) with the exact log1p, 0 where x is 0.
//   special_entr   -x log x, 0 at 0, -inf below 0.
//   (i0, i0e, i1, i1e: with torch.special's Bessel functions, bessel.cpp)
//   special_ndtri  the normal quantile: (y - 1/2) times a series in
//                  (y - 1/2)^2 for |y - 1/2| <= 3/8; beyond, with p = min(y,
//                  1 - y) and z = sqrt(-2 log p), +-(z - a series in log z)
//                  (smooth in log z down to the least double). -inf at 0,
//                  inf at 1, NaN outside [0, 1], as ATen.
//
// The series are interpolated from mpmath's values by
// aten_onnx/tools/special_series.py (error below 5e-16 against mpmath on
// their whole range); a double input is computed in double with every
// term, others in float32 (halves promoted, as ATen's kernels do) with the
// terms a float can see. The relative error is then a few units in the
// last place of the compute type on the whole real line.
#include "mx/onnx_proto.hpp"

#include <cmath>

#include "cephes_series.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

// The series of aten_onnx/tools/special_series.py: g(s) = log(erfcx(x) / t).
constexpr double kErfcxLog[] = {
    -0.6513268598908547,     0.64196979235649021,     0.019476473204185815,    -0.0095615147868086288,
    -0.00094659534448203323, 0.00036683949785277191,  4.2523324806903141e-05,  -2.0278578112542201e-05,
    -1.6242900046438319e-06, 1.3036558355845155e-06,  1.5626441735106082e-08,  -8.5238095910695824e-08,
    6.5290544292517734e-09,  5.0593434983995895e-09,  -9.9136415300273537e-10, -2.2736510930367796e-10,
    9.6467906341519039e-11,  2.3940318820375468e-12,  -6.8860327443859323e-12, 8.9451304420589136e-13,
    3.1310503884357025e-13,  -1.1272935858306621e-13, 3.7262435468134539e-16,  7.113080518947549e-15,
    -1.5169605226486131e-15, -1.0724771763448361e-16, 1.3050460856823117e-16,
};
// ndtri(y) / (y - 1/2) for s = 2 (y - 1/2)^2 / (3/8)^2 - 1; z + ndtri(p) for
// s = 2 (log z - t0) / (t1 - t0) - 1, z = sqrt(-2 log p), p = min(y, 1 - y).
constexpr double kNdtriT0 = 0.71262327432319539, kNdtriT1 = 3.653355100270022;
constexpr double kNdtriCentral[] = {
    2.7562624077356199,     0.2762559100066958,     0.03020715670967427,    0.0041249572430775766,
    0.00062620137106827968, 0.00010112940123524513, 1.7007480612067805e-05, 2.9431496228751994e-06,
    5.2023542916232401e-07, 9.3475544805633388e-08, 1.7015599700790581e-08, 3.1303632673656169e-09,
    5.8097307204848294e-10, 1.0862533501517669e-10, 2.0438598962965142e-11, 3.8667219813830723e-12,
    7.3502415764412892e-13, 1.4030622213705535e-13, 2.6882381410839679e-14, 5.1791124092163474e-15,
    1.0022427367971143e-15, 1.843375588655783e-16,
};
constexpr double kNdtriTail[] = {
    0.42934253035261194,     -0.37973142237712626,    0.07512319599717282,     -0.0057023016280471515,
    -0.00067539388874756896, 0.00022517018363959489,  -1.8933469928557357e-05, -3.1323886388879014e-06,
    1.3560210003419211e-06,  -1.9597038794846409e-07, -1.8804097159360083e-08, 1.6134949486699046e-08,
    -2.9179946641212659e-09, -3.2650478837822726e-10, 2.7253864153098466e-10,  -4.1509136674227227e-11,
    -9.3998671035948546e-12, 5.0644467376035123e-12,  -4.5845149984789933e-13, -2.673029232852861e-13,
    9.2321359125953918e-14,  -5.0622033234704471e-17, -6.9481659313181828e-15, 1.4778511958605048e-15,
    2.1617257608720334e-16,  -1.4844514409078462e-16,
};

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int32_t kDouble = onnx::TensorProto::DOUBLE;

int32_t compute_dtype(int32_t out) {
  return out == kDouble ? kDouble : kFloat;
}

// c[0] + c[1] T1(s) + ... by Clenshaw's recurrence, s in [-1, 1]. A float
// drops the terms below 1e-9: their sum is under its rounding.
template <size_t N>
std::string chebyshev(OnnxEmitter& cx, const std::string& s, const double (&c)[N], int32_t dt) {
  size_t n = N;
  if (dt != kDouble)
    while (n > 2 && std::abs(c[n - 1]) < 1e-9) --n;
  const std::string two_s = cx.emit1("Add", {s, s});
  std::string b1 = cx.cscalar(c[n - 1], dt), b2;
  for (size_t k = n - 2; k >= 1; --k) {
    std::string b = cx.emit1("Mul", {two_s, b1});
    if (!b2.empty()) b = cx.emit1("Sub", {b, b2});
    b2 = b1;
    b1 = cx.emit1("Add", {b, cx.cscalar(c[k], dt)});
  }
  const std::string sum = cx.emit1("Add", {cx.emit1("Mul", {s, b1}), cx.cscalar(c[0], dt)});
  return b2.empty() ? sum : cx.emit1("Sub", {sum, b2});
}

// erfcx(x) = t exp(g) for x >= 0 (and +inf: t = 0).
struct ErfcxParts {
  std::string t, g;
};
ErfcxParts erfcx_parts(OnnxEmitter& cx, const std::string& x, int32_t dt) {
  const std::string two = cx.cscalar(2, dt);
  const std::string t = cx.emit1("Div", {two, cx.emit1("Add", {two, x})});
  const std::string s = cx.emit1("Sub", {cx.emit1("Add", {t, t}), cx.cscalar(1, dt)});
  return {t, chebyshev(cx, s, kErfcxLog, dt)};
}

// exp(sign * x^2) without the rounding of x^2, which exp would magnify
// (x^2 ~ 100 carries ~100 ulps): x = hi + lo with hi on a grid of 2^-8
// (2^-21 in double), so hi^2 is exact wherever the result neither under-
// nor overflows (|x| < 16, 32 in double), then exp(sign hi^2) exp(sign (x - hi)(x + hi)).
std::string exp_of_square(OnnxEmitter& cx, const std::string& x_in, double sign, int32_t dt) {
  // |x| capped at 1e4 (where the result is 0 or inf already): inf - inf is not
  const std::string cap = cx.cscalar(1e4, dt);
  const std::string x = cx.emit1("Where", {cx.emit1("Greater", {cx.emit1("Abs", {x_in}), cap}),
                                           cx.emit1("Mul", {cx.emit1("Sign", {x_in}), cap}), x_in});
  const std::string grid = cx.cscalar(dt == kDouble ? 2097152.0 : 256.0, dt);
  const std::string hi = cx.emit1("Div", {cx.emit1("Round", {cx.emit1("Mul", {x, grid})}), grid});
  const std::string s = cx.cscalar(sign, dt);
  const std::string big = cx.emit1("Mul", {cx.emit1("Mul", {hi, hi}), s});
  const std::string small =
      cx.emit1("Mul", {cx.emit1("Mul", {cx.emit1("Sub", {x, hi}), cx.emit1("Add", {x, hi})}), s});
  return cx.emit1("Mul", {cx.emit1("Exp", {big}), cx.emit1("Exp", {small})});
}

void lower_erfcx(OpContext& cx) {
  const int32_t out = cx.out_dtype(), dt = compute_dtype(out);
  const std::string x = cx.operand("self", dt);
  const ErfcxParts p = erfcx_parts(cx, cx.emit1("Abs", {x}), dt);
  const std::string right = cx.emit1("Mul", {p.t, cx.emit1("Exp", {p.g})});
  const std::string twice_gauss = cx.emit1("Mul", {cx.cscalar(2, dt), exp_of_square(cx, x, 1, dt)});
  const std::string left = cx.emit1("Sub", {twice_gauss, right});
  const std::string y = cx.emit1("Where", {cx.emit1("Less", {x, cx.cscalar(0, dt)}), left, right});
  cx.out(0, cx.cast(y, dt, out));
}
MX_ATEN_LOWER(lower_erfcx, "aten.special_erfcx");

// erfc(w) from the parts of erfcx(|w|) and gauss = exp(-w^2): t exp(g)
// gauss, 2 minus that below 0 - the tail keeps its relative precision
// where 1 - erf(w) is 0. (ndtr's w = x / sqrt 2 is rounded: its gauss is
// exp(-x^2 / 2) from x itself.)
std::string erfc_from(OnnxEmitter& cx, const ErfcxParts& p, const std::string& w, const std::string& gauss,
                      int32_t dt) {
  const std::string tail = cx.emit1("Mul", {cx.emit1("Mul", {p.t, cx.emit1("Exp", {p.g})}), gauss});
  return cx.emit1(
      "Where", {cx.emit1("Less", {w, cx.cscalar(0, dt)}), cx.emit1("Sub", {cx.cscalar(2, dt), tail}), tail});
}

// erfc(x) itself: the tail relative for x >= 0, 2 minus it below.
std::string erfc(OnnxEmitter& cx, const std::string& x, int32_t dt) {
  return erfc_from(cx, erfcx_parts(cx, cx.emit1("Abs", {x}), dt), x, exp_of_square(cx, x, -1, dt), dt);
}

// erfc(x), and special_ndtr(x) = erfc(-x / sqrt 2) / 2 (Cephes' ndtr, which
// ATen computes: the lower tail relative, not 1 - a rounded 1).
void lower_erfc_ndtr(OpContext& cx) {
  const int32_t out = cx.out_dtype(), dt = compute_dtype(out);
  const std::string x = cx.operand("self", dt);
  if (cx.op() != "special_ndtr") {
    return cx.out(0, cx.cast(erfc(cx, x, dt), dt, out));
  }
  const std::string w = cx.emit1("Mul", {x, cx.cscalar(-1.0 / std::sqrt(2.0), dt)});
  const ErfcxParts p = erfcx_parts(cx, cx.emit1("Abs", {w}), dt);
  const std::string y = erfc_from(cx, p, w, exp_of_square(cx, x, -0.5, dt), dt);
  cx.out(0, cx.cast(cx.emit1("Mul", {y, cx.cscalar(0.5, dt)}), dt, out));
}
MX_ATEN_LOWER(lower_erfc_ndtr, "aten.erfc", "aten.erfc_", "aten.special_erfc", "aten.special_ndtr");

// erf: ONNX's Erf, except in double, which ONNX Runtime's CPU provider has
// for float only (a float64 program's file would not load). Double is
// Cephes' erf (ndtr.c), within an ulp or two of the libm erf ATen calls:
// x T(x^2) / U(x^2) on |x| <= 1, 1 - erfc(x) beyond, with erfc written out
// as above (erfc(1) = 0.157: no digits cancel).
constexpr double kErfT[] = {9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
                            7.00332514112805075473E3, 5.55923013010394962768E4};
constexpr double kErfU[] = {1.0,
                            3.35617141647503099647E1,
                            5.21357949780152679795E2,
                            4.59432382970980127987E3,
                            2.26290000613890934246E4,
                            4.92673942608635921086E4};  // p1evl's implicit leading 1
}  // namespace

std::string emit_erf_double(OnnxEmitter& e, const std::string& x) {
  const int32_t dt = kDouble;
  const std::string z = e.emit1("Mul", {x, x});
  const std::string near = e.emit1(
      "Div", {e.emit1("Mul", {x, cephes::horner(e, z, kErfT, dt)}), cephes::horner(e, z, kErfU, dt)});
  const std::string ax = e.emit1("Abs", {x});
  const std::string far = e.emit1("Sub", {e.cscalar(1, dt), erfc(e, x, dt)});
  return e.emit1("Where", {e.emit1("Greater", {ax, e.cscalar(1, dt)}), far, near});
}

namespace {

void lower_erf(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  cx.out(0, dt == kDouble ? emit_erf_double(cx, x) : cx.emit1("Erf", {x}));
}
MX_ATEN_LOWER(lower_erf, "aten.erf", "aten.erf_");

void lower_log1p(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, emit_log1p(cx, cx.operand("self", dt), dt));
}
MX_ATEN_LOWER(lower_log1p, "aten.log1p", "aten.log1p_", "aten.special_log1p");

// special_xlog1py(self, other) = self log1p(other), 0 where self is 0
// (unless other is NaN), as ATen; the log1p exact.
void lower_xlog1py(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt), y = cx.operand("other", dt);
  const std::string prod = cx.emit1("Mul", {x, emit_log1p(cx, y, dt)});
  const std::string zero =
      cx.emit1("And", {cx.emit1("Equal", {x, cx.cscalar(0, dt)}), cx.emit1("Not", {emit_is_nan(cx, y, dt)})});
  cx.out(0, cx.emit1("Where", {zero, cx.cscalar(0, dt), prod}));
}
MX_ATEN_LOWER(lower_xlog1py, "aten.special_xlog1py");

// special_entr(x) = -x log(x) for x > 0, 0 at 0, -inf below (NaN stays NaN).
void lower_entr(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt), zero = cx.cscalar(0, dt);
  const std::string pos = cx.emit1("Neg", {cx.emit1("Mul", {x, cx.emit1("Log", {x})})});
  const std::string y = cx.emit1("Where", {cx.emit1("Equal", {x, zero}), zero, pos});
  cx.out(0, cx.emit1("Where", {cx.emit1("Less", {x, zero}), cx.cscalar(-INFINITY, dt), y}));
}
MX_ATEN_LOWER(lower_entr, "aten.special_entr");

void lower_log_ndtr(OpContext& cx) {
  const int32_t out = cx.out_dtype(), dt = compute_dtype(out);
  const std::string x = cx.operand("self", dt);
  const std::string z = cx.emit1("Mul", {x, cx.cscalar(1.0 / std::sqrt(2.0), dt)});
  const ErfcxParts p = erfcx_parts(cx, cx.emit1("Abs", {z}), dt);
  // x < -1: log(erfcx(|z|)) - log 2 - z^2
  const std::string log_erfcx = cx.emit1("Add", {cx.emit1("Log", {p.t}), p.g});
  const std::string left =
      cx.emit1("Sub", {cx.emit1("Sub", {log_erfcx, cx.cscalar(std::log(2.0), dt)}), cx.emit1("Mul", {z, z})});
  // x >= -1: log1p(-erfc(z) / 2)
  const std::string right = emit_log1p(
      cx, cx.emit1("Mul", {erfc_from(cx, p, z, exp_of_square(cx, x, -0.5, dt), dt), cx.cscalar(-0.5, dt)}),
      dt);
  const std::string y = cx.emit1("Where", {cx.emit1("Less", {x, cx.cscalar(-1, dt)}), left, right});
  cx.out(0, cx.cast(y, dt, out));
}
MX_ATEN_LOWER(lower_log_ndtr, "aten.special_log_ndtr");

void lower_ndtri(OpContext& cx) {
  const int32_t out = cx.out_dtype(), dt = compute_dtype(out);
  const std::string y = cx.operand("self", dt);
  const std::string one = cx.cscalar(1, dt), half = cx.cscalar(0.5, dt);
  const std::string u = cx.emit1("Sub", {y, half});
  const std::string s_central =
      cx.emit1("Sub", {cx.emit1("Mul", {cx.emit1("Mul", {u, u}), cx.cscalar(2 / (0.375 * 0.375), dt)}), one});
  const std::string central =
      cx.emit1("Mul", {u, chebyshev(cx, cx.emit1("Min", {s_central, one}), kNdtriCentral, dt)});
  const std::string lower = cx.emit1("Less", {y, half});
  const std::string p = cx.emit1("Where", {lower, y, cx.emit1("Sub", {one, y})});
  const std::string z = cx.emit1("Sqrt", {cx.emit1("Mul", {cx.emit1("Log", {p}), cx.cscalar(-2, dt)})});
  const std::string s_raw =
      cx.emit1("Sub", {cx.emit1("Mul", {cx.emit1("Sub", {cx.emit1("Log", {z}), cx.cscalar(kNdtriT0, dt)}),
                                        cx.cscalar(2 / (kNdtriT1 - kNdtriT0), dt)}),
                       one});
  const std::string s_tail = cx.emit1("Max", {cx.emit1("Min", {s_raw, one}), cx.cscalar(-1, dt)});
  const std::string low_tail = cx.emit1("Sub", {chebyshev(cx, s_tail, kNdtriTail, dt), z});
  const std::string tail = cx.emit1("Where", {lower, low_tail, cx.emit1("Neg", {low_tail})});
  const std::string in_central = cx.emit1("LessOrEqual", {cx.emit1("Abs", {u}), cx.cscalar(0.375, dt)});
  cx.out(0, cx.cast(cx.emit1("Where", {in_central, central, tail}), dt, out));
}
MX_ATEN_LOWER(lower_ndtri, "aten.special_ndtri");

}  // namespace
}  // namespace mx::aten_onnx
