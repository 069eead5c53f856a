// Trigonometric and hyperbolic ops in double precision. ONNX Runtime's CPU
// provider registers Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh and
// Atanh for float only: a float64 program lowered to them exports a valid
// file that ONNX Runtime refuses to load ("Could not find an
// implementation for Acos(7)"). Each is written out with the ops it has in
// double (Sin, Cos, Tanh, Exp, Log, Sqrt) in forms that keep double's
// precision: no subtraction of nearly equal values, log1p in Goldberg's
// form (log1p.cpp), atan refined from float's (atan2.cpp).
#include "mx/onnx_proto.hpp"

#include <cmath>

#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

constexpr int32_t kDouble = onnx::TensorProto::DOUBLE;
// Above this |x|, x^2 + 1 would overflow or round to x^2: asinh and acosh
// are log(2|x|) to double precision there.
constexpr double kLarge = 268435456.0;  // 2^28

std::string c(OnnxEmitter& e, double v) { return e.cscalar(v, kDouble); }

// sqrt((1 - x)(1 + x)): exact in its factors near |x| = 1, where 1 - x^2 is not.
std::string cosine_of_arcsine(OnnxEmitter& e, const std::string& x) {
  const std::string one = c(e, 1);
  return e.emit1("Sqrt", {e.emit1("Mul", {e.emit1("Sub", {one, x}), e.emit1("Add", {one, x})})});
}

// x with the sign of s (the magnitude functions below work on |x|).
std::string signed_like(OnnxEmitter& e, const std::string& s, const std::string& magnitude) {
  return e.emit1("Where", {e.emit1("Less", {s, c(e, 0)}), e.emit1("Neg", {magnitude}), magnitude});
}

// sinh: 2t / (1 - t^2) with t = tanh(x / 2) below |x| = 1 (exp(x) -
// exp(-x) would cancel there), (exp(x) - exp(-x)) / 2 above.
std::string sinh(OnnxEmitter& e, const std::string& x) {
  const std::string t = e.emit1("Tanh", {e.emit1("Mul", {x, c(e, 0.5)})});
  const std::string small = e.emit1(
      "Div", {e.emit1("Mul", {t, c(e, 2)}), e.emit1("Sub", {c(e, 1), e.emit1("Mul", {t, t})})});
  const std::string large = e.emit1(
      "Mul", {e.emit1("Sub", {e.emit1("Exp", {x}), e.emit1("Exp", {e.emit1("Neg", {x})})}), c(e, 0.5)});
  return e.emit1("Where", {e.emit1("Less", {e.emit1("Abs", {x}), c(e, 1)}), small, large});
}

std::string cosh(OnnxEmitter& e, const std::string& x) {
  return e.emit1(
      "Mul", {e.emit1("Add", {e.emit1("Exp", {x}), e.emit1("Exp", {e.emit1("Neg", {x})})}), c(e, 0.5)});
}

// asinh(|x|) = log1p(a + a^2 / (1 + sqrt(1 + a^2))), the sign of x restored.
std::string asinh(OnnxEmitter& e, const std::string& x) {
  const std::string a = e.emit1("Abs", {x});
  const std::string a2 = e.emit1("Mul", {a, a});
  const std::string inner = e.emit1(
      "Add", {a, e.emit1("Div", {a2, e.emit1("Add", {c(e, 1), e.emit1("Sqrt", {e.emit1("Add", {c(e, 1), a2})})})})});
  const std::string far = e.emit1("Add", {e.emit1("Log", {a}), c(e, std::log(2.0))});
  const std::string r =
      e.emit1("Where", {e.emit1("Greater", {a, c(e, kLarge)}), far, emit_log1p(e, inner, kDouble)});
  return signed_like(e, x, r);
}

// acosh(x) = log1p(d + sqrt(2d + d^2)), d = x - 1 (exact near 1); NaN below 1.
std::string acosh(OnnxEmitter& e, const std::string& x) {
  const std::string d = e.emit1("Sub", {x, c(e, 1)});
  const std::string root =
      e.emit1("Sqrt", {e.emit1("Add", {e.emit1("Mul", {d, c(e, 2)}), e.emit1("Mul", {d, d})})});
  const std::string near = emit_log1p(e, e.emit1("Add", {d, root}), kDouble);
  const std::string far = e.emit1("Add", {e.emit1("Log", {x}), c(e, std::log(2.0))});
  const std::string r = e.emit1("Where", {e.emit1("Greater", {x, c(e, kLarge)}), far, near});
  // log1p of a value below -1 is NaN already; x < 1 with 2d + d^2 >= 0 (x <= -1) is not
  return e.emit1("Where", {e.emit1("Less", {x, c(e, 1)}), c(e, NAN), r});
}

// atanh(|x|) = log1p(2a / (1 - a)) / 2, the sign restored (inf at 1, NaN beyond).
std::string atanh(OnnxEmitter& e, const std::string& x) {
  const std::string a = e.emit1("Abs", {x});
  const std::string q = e.emit1("Div", {e.emit1("Mul", {a, c(e, 2)}), e.emit1("Sub", {c(e, 1), a})});
  const std::string r = e.emit1("Mul", {emit_log1p(e, q, kDouble), c(e, 0.5)});
  return signed_like(e, x, e.emit1("Where", {e.emit1("Greater", {a, c(e, 1)}), c(e, NAN), r}));
}

}  // namespace

std::string emit_trig_double(OnnxEmitter& e, const std::string& op, const std::string& x) {
  if (op == "tan") return e.emit1("Div", {e.emit1("Sin", {x}), e.emit1("Cos", {x})});
  if (op == "atan") return emit_atan_double(e, x);
  if (op == "asin") return emit_atan2(e, x, cosine_of_arcsine(e, x), kDouble);
  if (op == "acos") return emit_atan2(e, cosine_of_arcsine(e, x), x, kDouble);
  if (op == "sinh") return sinh(e, x);
  if (op == "cosh") return cosh(e, x);
  if (op == "asinh") return asinh(e, x);
  if (op == "acosh") return acosh(e, x);
  if (op == "atanh") return atanh(e, x);
  return "";
}

}  // namespace mx::aten_onnx
