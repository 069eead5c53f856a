// atan2, which ONNX lacks: shared by atan2 itself and by the angle of a
// complex value (lower/fft.cpp).
#include "mx/onnx_proto.hpp"

#include <cmath>

#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {

// atan(q) in double: ONNX Runtime's Atan is float-only, so float's angle
// t is refined by the angle of the rotation that remains, atan(q) = t +
// atan((q cos t - sin t) / (cos t + q sin t)), whose argument (~1e-7) is
// its own arctangent to double precision. |q| > 1 is reduced first
// (atan(q) = sign(q) pi/2 - atan(1/q)) so infinities stay finite.
std::string emit_atan_double(OnnxEmitter& e, const std::string& q) {
  constexpr int32_t kDouble = onnx::TensorProto::DOUBLE;
  const std::string one = e.cscalar(1, kDouble);
  const std::string large = e.emit1("Greater", {e.emit1("Abs", {q}), one});
  const std::string u = e.emit1("Where", {large, e.emit1("Div", {one, q}), q});
  const std::string t = e.cast(e.emit1("Atan", {e.cast(u, kDouble, onnx::TensorProto::FLOAT)}),
                               onnx::TensorProto::FLOAT, kDouble);
  const std::string c = e.emit1("Cos", {t}), s = e.emit1("Sin", {t});
  const std::string r = e.emit1(
      "Div", {e.emit1("Sub", {e.emit1("Mul", {u, c}), s}), e.emit1("Add", {c, e.emit1("Mul", {u, s})})});
  const std::string a = e.emit1("Add", {t, r});
  const std::string quarter = e.emit1("Mul", {e.emit1("Sign", {q}), e.cscalar(M_PI / 2, kDouble)});
  return e.emit1("Where", {large, e.emit1("Sub", {quarter, a}), a});
}

std::string emit_atan2(OnnxEmitter& e, const std::string& y, const std::string& x, int32_t dtype) {
  const std::string zero = e.cscalar(0, dtype), pi = e.cscalar(M_PI, dtype);
  const std::string x_zero = e.emit1("Equal", {x, zero});
  const std::string safe_x = e.emit1("Where", {x_zero, e.cscalar(1, dtype), x});
  const std::string q = e.emit1("Div", {y, safe_x});
  std::string a = dtype == onnx::TensorProto::DOUBLE ? emit_atan_double(e, q) : e.emit1("Atan", {q});
  // y's sign bit: -0.0 (reciprocal -inf) turns to -pi on the negative x axis, as in ATen
  const std::string y_neg =
      e.emit1("Or", {e.emit1("Less", {y, zero}), e.emit1("Less", {e.emit1("Reciprocal", {y}), zero})});
  const std::string shift = e.emit1("Where", {y_neg, e.emit1("Neg", {pi}), pi});
  a = e.emit1("Where", {e.emit1("Less", {x, zero}), e.emit1("Add", {a, shift}), a});
  const std::string half = e.emit1("Mul", {e.emit1("Sign", {y}), e.cscalar(M_PI / 2, dtype)});
  return e.emit1("Where", {x_zero, half, a});
}

}  // namespace mx::aten_onnx
