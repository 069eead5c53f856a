// special_airy_ai, the Airy function Ai, as ATen's kernel (ATen/native/
// Math.h, from Cephes) computes it, in its order of operations:
//
//   x < -2.09      the oscillating asymptotic form: with zeta = 2/3 (-x)^(3/2),
//                  z = 1 / zeta and t = zeta + pi / 4,
//                  (sin(t) (1 + z^2 F(z^2)) - cos(t) z G(z^2)) / (sqrt(pi) (-x)^(1/4)),
//                  F and G rational;
//   x >= 2.09      sqrt(pi)^-1 A(1 / zeta) / (2 x^(1/4) exp(zeta)), A rational;
//                  0 beyond 103.892 (where exp(zeta) overflows a double);
//   between        the Maclaurin series c1 f(x) - c2 g(x), f and g summed
//                  until a term of f falls below the type's epsilon
//                  relative to f. The kernel's loop stops per element; here
//                  it is unrolled to the longest run on [-2.09, 2.09] (9
//                  steps in float, 13 in double) and an element keeps its
//                  sums from the step its own loop would stop.
//   +-inf          NaN, as ATen.
#include <cmath>
#include <limits>
#include <string>

#include "cephes_series.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"
#include "mx/onnx_proto.hpp"

namespace mx::aten_onnx {
namespace {

using cephes::horner;

// ATen's tables (Math.h: airy_ai_forward).
constexpr double kAiryAN[] = {
    3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01,
    1.68089224934630576269e+02, 1.59756391350164413639e+02, 7.05360906840444183113e+01,
    1.40264691163389668864e+01, 9.99999999999999995305e-01,
};
constexpr double kAiryAD[] = {
    5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01,
    1.77318088145400459522e+02, 1.64234692871529701831e+02, 7.14778400825575695274e+01,
    1.40959135607834029598e+01, 1.00000000000000000470e+00,
};
constexpr double kAiryAFN[] = {
    -1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
    -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
    -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08,
};
constexpr double kAiryAFD[] = {
    1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01,
    9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01,
    4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07,
};
constexpr double kAiryAGN[] = {
    1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00,
    9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
    5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
    8.11789239554389293311e-08, 3.41551784765923618484e-10,
};
constexpr double kAiryAGD[] = {
    9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01,
    5.47686069422975497931e+00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
    4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
    4.91834570062930015649e-09,
};

constexpr double kInvSqrtPi = 5.64189583547756286948e-01;

// x < -2.09
std::string airy_oscillating(OpContext& cx, const std::string& x, int32_t dt) {
  const std::string neg = cx.emit1("Neg", {x});
  // T(-2.0) * x * sqrt(-x) / T(3.0)
  const std::string zeta =
      cx.emit1("Div", {cx.emit1("Mul", {cx.emit1("Mul", {cx.cscalar(-2, dt), x}), cx.emit1("Sqrt", {neg})}),
                       cx.cscalar(3, dt)});
  const std::string z = cx.emit1("Div", {cx.cscalar(1, dt), zeta});
  const std::string z2 = cx.emit1("Mul", {z, z});
  const std::string f =
      cx.emit1("Div", {cx.emit1("Mul", {z2, horner(cx, z2, kAiryAFN, dt)}), horner(cx, z2, kAiryAFD, dt)});
  const std::string g =
      cx.emit1("Div", {cx.emit1("Mul", {z, horner(cx, z2, kAiryAGN, dt)}), horner(cx, z2, kAiryAGD, dt)});
  const std::string t = cx.emit1("Add", {zeta, cx.cscalar(0.25 * M_PI, dt)});
  const std::string v =
      cx.emit1("Sub", {cx.emit1("Mul", {cx.emit1("Sin", {t}), cx.emit1("Add", {cx.cscalar(1, dt), f})}),
                       cx.emit1("Mul", {cx.emit1("Cos", {t}), g})});
  const std::string scale =
      cx.emit1("Div", {cx.cscalar(kInvSqrtPi, dt), cx.emit1("Sqrt", {cx.emit1("Sqrt", {neg})})});
  return cx.emit1("Mul", {scale, v});
}

// x >= 2.09
std::string airy_decaying(OpContext& cx, const std::string& x, int32_t dt) {
  const std::string zeta = cx.emit1(
      "Div",
      {cx.emit1("Mul", {cx.emit1("Mul", {cx.cscalar(2, dt), x}), cx.emit1("Sqrt", {x})}), cx.cscalar(3, dt)});
  const std::string w = cx.emit1("Div", {cx.cscalar(1, dt), zeta});
  const std::string ratio = cx.emit1("Div", {horner(cx, w, kAiryAN, dt), horner(cx, w, kAiryAD, dt)});
  const std::string den =
      cx.emit1("Mul", {cx.emit1("Mul", {cx.cscalar(2, dt), cx.emit1("Sqrt", {cx.emit1("Sqrt", {x})})}),
                       cx.emit1("Exp", {zeta})});
  return cx.emit1("Div", {cx.emit1("Mul", {cx.cscalar(kInvSqrtPi, dt), ratio}), den});
}

// -2.09 <= x < 2.09: f = 1 + sum m_k, g = x + sum n_k over the steps while
// |m / f| > epsilon (checked before each step, as the kernel's while).
std::string airy_series(OpContext& cx, const std::string& x, int32_t dt) {
  const bool wide = dt == onnx::TensorProto::DOUBLE;
  const int steps = wide ? 13 : 9;
  const std::string eps =
      cx.cscalar(wide ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon(), dt);
  const std::string one = cx.cscalar(1, dt);
  const std::string z = cx.emit1("Mul", {cx.emit1("Mul", {x, x}), x});
  std::string f = one, g = x, m = one, n = x, t = one, k = one;
  for (int s = 0; s < steps; ++s) {
    const std::string going = cx.emit1("Greater", {t, eps});
    auto keep = [&](const std::string& next, const std::string& prev) {
      return cx.emit1("Where", {going, next, prev});
    };
    std::string m2 = cx.emit1("Mul", {m, z});
    std::string k2 = cx.emit1("Add", {k, one});
    m2 = cx.emit1("Div", {m2, k2});
    std::string n2 = cx.emit1("Mul", {n, z});
    k2 = cx.emit1("Add", {k2, one});
    n2 = cx.emit1("Div", {n2, k2});
    m2 = cx.emit1("Div", {m2, k2});
    const std::string f2 = cx.emit1("Add", {f, m2});
    k2 = cx.emit1("Add", {k2, one});
    n2 = cx.emit1("Div", {n2, k2});
    const std::string g2 = cx.emit1("Add", {g, n2});
    const std::string t2 = cx.emit1("Abs", {cx.emit1("Div", {m2, f2})});
    f = keep(f2, f);
    g = keep(g2, g);
    m = keep(m2, m);
    n = keep(n2, n);
    k = keep(k2, k);
    t = keep(t2, t);
  }
  return cx.emit1("Sub", {cx.emit1("Mul", {cx.cscalar(0.355028053887817239260, dt), f}),
                          cx.emit1("Mul", {cx.cscalar(0.258819403792806798405, dt), g})});
}

void lower_airy_ai(OpContext& cx) {
  const int32_t out = cx.out_dtype(), dt = cephes::kernel_dtype(out);
  const std::string x = cx.operand(cephes::unary_input(cx), dt);
  std::string y = cx.emit1("Where", {cx.emit1("Less", {x, cx.cscalar(2.09, dt)}), airy_series(cx, x, dt),
                                     airy_decaying(cx, x, dt)});
  y = cx.emit1("Where", {cx.emit1("Less", {x, cx.cscalar(-2.09, dt)}), airy_oscillating(cx, x, dt), y});
  y = cx.emit1("Where", {cx.emit1("Greater", {x, cx.cscalar(103.892, dt)}), cx.cscalar(0, dt), y});
  y = cx.emit1("Where",
               {emit_is_inf(cx, x, dt), cx.cscalar(std::numeric_limits<double>::quiet_NaN(), dt), y});
  cx.out(0, cx.cast(y, dt, out));
}
MX_ATEN_LOWER(lower_airy_ai, "aten.special_airy_ai");

}  // namespace
}  // namespace mx::aten_onnx
