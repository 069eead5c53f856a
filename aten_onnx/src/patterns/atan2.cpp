// atan2, which ONNX lacks: shared by atan2 itself and by the angle of a
// complex value (lower/fft.cpp).
#include <cmath>

#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {

std::string emit_atan2(OnnxEmitter& e, const std::string& y, const std::string& x, int32_t dtype) {
  const std::string zero = e.cscalar(0, dtype), pi = e.cscalar(M_PI, dtype);
  const std::string x_zero = e.emit1("Equal", {x, zero});
  const std::string safe_x = e.emit1("Where", {x_zero, e.cscalar(1, dtype), x});
  std::string a = e.emit1("Atan", {e.emit1("Div", {y, safe_x})});
  // y's sign bit: -0.0 (reciprocal -inf) turns to -pi on the negative x axis, as in ATen
  const std::string y_neg =
      e.emit1("Or", {e.emit1("Less", {y, zero}), e.emit1("Less", {e.emit1("Reciprocal", {y}), zero})});
  const std::string shift = e.emit1("Where", {y_neg, e.emit1("Neg", {pi}), pi});
  a = e.emit1("Where", {e.emit1("Less", {x, zero}), e.emit1("Add", {a, shift}), a});
  const std::string half = e.emit1("Mul", {e.emit1("Sign", {y}), e.cscalar(M_PI / 2, dtype)});
  return e.emit1("Where", {x_zero, half, a});
}

}  // namespace mx::aten_onnx
