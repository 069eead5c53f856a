// Trigonometric and hyperbolic functions of complex values on the pair
// layout (complex_pairs.hpp), by the component formulas of C's csin,
// ccos, csinh, ccosh, ctanh (which c10::complex calls):
//
//   sin(a + ib)  = sin a cosh b + i cos a sinh b
//   cos(a + ib)  = cos a cosh b - i sin a sinh b
//   sinh(a + ib) = sinh a cos b + i cosh a sin b
//   cosh(a + ib) = cosh a cos b + i sinh a sin b
//   tanh(a + ib) = (sinh a cosh a + i sin b cos b) / (sinh^2 a + cos^2 b),
//                  and sign(a) + i 4 sin b cos b exp(-2|a|) beyond |a| = 44
//                  (354 in double), where the squares overflow (glibc's cut)
//   sigmoid(z)   = 1 / (1 + exp(-z)), the quotient by Smith's algorithm
//
// ONNX Runtime's Sinh and Cosh are float-only: a double takes them from
// Exp, sinh by Kahan's expm1 form (no cancellation near 0).
#include <cmath>
#include <string>

#include "complex_pairs.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"
#include "mx/onnx_proto.hpp"

namespace mx::aten_onnx {
namespace {

using pairs::component;
using pairs::join;
using pairs::part;

struct SinhCosh {
  std::string sinh, cosh;
};

SinhCosh sinh_cosh(OnnxEmitter& e, const std::string& a, int32_t dt) {
  if (dt != onnx::TensorProto::DOUBLE) return {e.emit1("Sinh", {a}), e.emit1("Cosh", {a})};
  const std::string one = e.cscalar(1, dt), half = e.cscalar(0.5, dt);
  const std::string x = e.emit1("Abs", {a});
  const std::string u = e.emit1("Exp", {x});
  // expm1(x) = (u - 1) x / log(u), x itself where u rounds to 1
  const std::string um1 = e.emit1("Sub", {u, one});
  const std::string em1 = e.emit1("Where", {e.emit1("Equal", {u, one}), x,
                                            e.emit1("Div", {e.emit1("Mul", {um1, x}), e.emit1("Log", {u})})});
  // sinh x = (em1 + em1 / (em1 + 1)) / 2; inf where u is
  std::string sh =
      e.emit1("Mul", {half, e.emit1("Add", {em1, e.emit1("Div", {em1, e.emit1("Add", {em1, one})})})});
  sh = e.emit1("Where", {emit_is_inf(e, u, dt, true, false), u, sh});
  sh = e.emit1("Where", {e.emit1("Less", {a, e.cscalar(0, dt)}), e.emit1("Neg", {sh}), sh});
  const std::string ch = e.emit1("Mul", {half, e.emit1("Add", {u, e.emit1("Reciprocal", {u})})});
  return {sh, ch};
}

std::string mul(OnnxEmitter& e, const std::string& x, const std::string& y) {
  return e.emit1("Mul", {x, y});
}

void lower_complex_trig(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int32_t dt = component(v.dtype);
  const std::string op = cx.op();
  const std::string a = part(cx, v.onnx, 0), b = part(cx, v.onnx, 1);
  if (op == "sin" || op == "cos") {
    const SinhCosh h = sinh_cosh(cx, b, dt);
    const std::string sa = cx.emit1("Sin", {a}), ca = cx.emit1("Cos", {a});
    if (op == "sin") return cx.out(0, join(cx, mul(cx, sa, h.cosh), mul(cx, ca, h.sinh)));
    return cx.out(0, join(cx, mul(cx, ca, h.cosh), cx.emit1("Neg", {mul(cx, sa, h.sinh)})));
  }
  const SinhCosh h = sinh_cosh(cx, a, dt);
  const std::string sb = cx.emit1("Sin", {b}), cb = cx.emit1("Cos", {b});
  if (op == "sinh") return cx.out(0, join(cx, mul(cx, h.sinh, cb), mul(cx, h.cosh, sb)));
  if (op == "cosh") return cx.out(0, join(cx, mul(cx, h.cosh, cb), mul(cx, h.sinh, sb)));
  // tanh
  const std::string den = cx.emit1("Add", {mul(cx, h.sinh, h.sinh), mul(cx, cb, cb)});
  const std::string sbcb = mul(cx, sb, cb);
  const std::string re = cx.emit1("Div", {mul(cx, h.sinh, h.cosh), den});
  const std::string im = cx.emit1("Div", {sbcb, den});
  const std::string abs_a = cx.emit1("Abs", {a});
  const std::string far_re =
      cx.emit1("Where", {cx.emit1("Less", {a, cx.cscalar(0, dt)}), cx.cscalar(-1, dt), cx.cscalar(1, dt)});
  const std::string far_im =
      mul(cx, mul(cx, cx.cscalar(4, dt), sbcb), cx.emit1("Exp", {mul(cx, cx.cscalar(-2, dt), abs_a)}));
  const std::string far =
      cx.emit1("Greater", {abs_a, cx.cscalar(dt == onnx::TensorProto::DOUBLE ? 354 : 44, dt)});
  cx.out(0, join(cx, cx.emit1("Where", {far, far_re, re}), cx.emit1("Where", {far, far_im, im})));
}
MX_ATEN_LOWER(lower_complex_trig, "complex.aten.sin", "complex.aten.cos", "complex.aten.sinh",
              "complex.aten.cosh", "complex.aten.tanh");

// sigmoid(z) = 1 / (1 + exp(-z)), exp(-a - ib) = e^-a (cos b - i sin b).
void lower_complex_sigmoid(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int32_t dt = component(v.dtype);
  const std::string a = part(cx, v.onnx, 0), b = part(cx, v.onnx, 1);
  const std::string e = cx.emit1("Exp", {cx.emit1("Neg", {a})});
  const std::string re = cx.emit1("Add", {cx.cscalar(1, dt), mul(cx, e, cx.emit1("Cos", {b}))});
  const std::string im = cx.emit1("Neg", {mul(cx, e, cx.emit1("Sin", {b}))});
  cx.out(0, pairs::reciprocal(cx, join(cx, re, im), dt));
}
MX_ATEN_LOWER(lower_complex_sigmoid, "complex.aten.sigmoid");

}  // namespace
}  // namespace mx::aten_onnx
