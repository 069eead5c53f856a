// pow with a complex operand, on the pair layout (complex_pairs.hpp):
// pow.Tensor_Tensor (complex ** complex, complex ** real, real ** complex
// tensors), pow.Tensor_Scalar (complex ** a Python number or complex
// number) and pow.Scalar (a Python number ** complex).
//
// ATen computes std::pow of complex values, which is C's cpow:
// exp(w log z) on the principal branch of log (arg in (-pi, pi], the sign
// of a zero imaginary part choosing the side of the cut along the negative
// reals), the product w log z and the exponential with C's rules for
// infinities: at z = 0, log z = -inf, so 0 ** w is 0 where Re(w) > 0,
// inf + i nan where Re(w) < 0 and nan + i nan where Re(w) == 0. A number
// exponent that ATen special-cases is computed as ATen computes it: 0 gives
// 1 everywhere (0 ** 0 included), 1 the base, 2, 3 and -2 products, 0.5,
// -0.5 and -1 sqrt, rsqrt and reciprocal.
#include "mx/onnx_proto.hpp"

#include <cmath>
#include <limits>
#include <optional>

#include "complex_pairs.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using pairs::component;

// exp(t) of the parts tr, ti ([..., 1]) with cexp's rules for infinite
// real parts: exp(-inf + i y) = 0 for any y, exp(+inf + i y) = inf + i nan
// for a y that is not finite, and a zero imaginary part stays zero. As
// glibc's cexp, e^tr past the largest finite exponential is applied in two
// factors, so a small cos or sin keeps a part finite.
std::string complex_exp(OnnxEmitter& e, const std::string& tr, const std::string& ti, int32_t dt) {
  const std::string zero = e.cscalar(0, dt);
  const std::string inf = e.cscalar(std::numeric_limits<double>::infinity(), dt);
  // (max exponent - 1) ln 2: e^t is finite
  const std::string t = e.cscalar(dt == onnx::TensorProto::DOUBLE ? 1023 * M_LN2 : 127 * M_LN2, dt);
  const std::string m1 = e.emit1("Exp", {e.emit1("Min", {tr, t})});
  const std::string m2 = e.emit1("Exp", {e.emit1("Max", {e.emit1("Sub", {tr, t}), zero})});
  std::string re = e.emit1("Mul", {e.emit1("Mul", {e.emit1("Cos", {ti}), m1}), m2});
  std::string im = e.emit1("Mul", {e.emit1("Mul", {e.emit1("Sin", {ti}), m1}), m2});
  im = e.emit1("Where", {e.emit1("Equal", {ti, zero}), ti, im});
  const std::string ti_finite =
      e.emit1("Not", {e.emit1("Or", {emit_is_nan(e, ti, dt), emit_is_inf(e, ti, dt, true, true)})});
  const std::string to_inf = e.emit1("And", {e.emit1("Equal", {tr, inf}), e.emit1("Not", {ti_finite})});
  re = e.emit1("Where", {to_inf, inf, re});
  const std::string to_zero = e.emit1("Equal", {tr, e.emit1("Neg", {inf})});
  re = e.emit1("Where", {to_zero, zero, re});
  im = e.emit1("Where", {to_zero, zero, im});
  return pairs::join(e, re, im);
}

// A number exponent of pow.Tensor_Scalar that ATen computes in its own
// way (pow_tensor_scalar_kernel): 0 fills with 1, 1 copies, 2, 3 and -2
// multiply (and divide), 0.5, -0.5 and -1 are sqrt, rsqrt and reciprocal;
// nullopt for any other.
std::optional<double> special_exponent(OpContext& cx) {
  double p = 0;
  const ArgKind k = cx.arg_kind("exponent");
  if (k == ArgKind::integer || k == ArgKind::floating) {
    p = cx.float_arg("exponent");
  } else if (k == ArgKind::complex_number) {
    const auto [re, im] = cx.complex_arg("exponent");
    if (im != 0) return std::nullopt;
    p = re;
  } else {
    return std::nullopt;
  }
  for (double s : {0.0, 1.0, 2.0, 3.0, -2.0, 0.5, -0.5, -1.0})
    if (p == s) return p;
  return std::nullopt;
}

void lower_complex_pow(OpContext& cx) {
  const int32_t dt = component(cx.out_dtype());
  if (cx.arg_kind("self") == ArgKind::tensor) {
    if (const auto p = special_exponent(cx)) {
      const std::string z = pairs::operand(cx, "self", dt);
      std::string y;
      if (*p == 0.0)  // 1 + 0i in the base's shape
        y = cx.emit1("Expand", {cx.cast(cx.ci64({1, 0}), onnx::TensorProto::INT64, dt), cx.shape_of(z)});
      else if (*p == 1.0) y = cx.emit1("Identity", {z});
      else if (*p == 2.0) y = pairs::product(cx, z, z);
      else if (*p == 3.0) y = pairs::product(cx, pairs::product(cx, z, z), z);
      else if (*p == -2.0) y = pairs::reciprocal(cx, pairs::product(cx, z, z), dt);
      else if (*p == 0.5) y = pairs::sqrt(cx, z, dt);
      else if (*p == -0.5) y = pairs::reciprocal(cx, pairs::sqrt(cx, z, dt), dt);
      else y = pairs::reciprocal(cx, z, dt);
      return cx.out(0, y);
    }
  }
  const std::string z = pairs::operand(cx, "self", dt), w = pairs::operand(cx, "exponent", dt);
  const std::string a = pairs::part(cx, z, 0), b = pairs::part(cx, z, 1);
  const std::string c = pairs::part(cx, w, 0), d = pairs::part(cx, w, 1);
  // log z = log|z| + i atan2(b, a)
  const std::string lr = cx.emit1("Log", {pairs::modulus(cx, a, b, dt)}), li = emit_atan2(cx, b, a, dt);
  // t = w log z
  auto mul = [&](const std::string& p, const std::string& q) { return cx.emit1("Mul", {p, q}); };
  const std::string tr = cx.emit1("Sub", {mul(c, lr), mul(d, li)});
  const std::string ti = cx.emit1("Add", {mul(c, li), mul(d, lr)});
  cx.out(0, complex_exp(cx, tr, ti, dt));
}
MX_ATEN_LOWER(lower_complex_pow, "complex.aten.pow");

}  // namespace
}  // namespace mx::aten_onnx
