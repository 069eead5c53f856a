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
// inf + i nan where Re(w) < 0 and nan + i nan where Re(w) == 0. A scalar
// exponent of 0 gives 1 everywhere (0 ** 0 included) and of 1 the base.
#include "mx/onnx_proto.hpp"

#include <limits>

#include "complex_pairs.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using pairs::component;

// exp(t) of the parts tr, ti ([..., 1]) with cexp's rules for infinite
// real parts: exp(-inf + i y) = 0 for any y, exp(+inf + i y) = inf + i nan
// for a y that is not finite, and a zero imaginary part stays zero.
std::string complex_exp(OnnxEmitter& e, const std::string& tr, const std::string& ti, int32_t dt) {
  const std::string zero = e.cscalar(0, dt);
  const std::string inf = e.cscalar(std::numeric_limits<double>::infinity(), dt);
  const std::string m = e.emit1("Exp", {tr});
  std::string re = e.emit1("Mul", {m, e.emit1("Cos", {ti})});
  std::string im = e.emit1("Mul", {m, e.emit1("Sin", {ti})});
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

void lower_complex_pow(OpContext& cx) {
  const int32_t dt = component(cx.out_dtype());
  if (cx.arg_kind("exponent") == ArgKind::integer || cx.arg_kind("exponent") == ArgKind::floating) {
    const double p = cx.float_arg("exponent");
    const std::string z = pairs::operand(cx, "self", dt);
    if (p == 1.0) return cx.out(0, cx.emit1("Identity", {z}));
    if (p == 0.0)  // 1 + 0i in the base's shape
      return cx.out(
          0, cx.emit1("Expand", {cx.cast(cx.ci64({1, 0}), onnx::TensorProto::INT64, dt), cx.shape_of(z)}));
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
