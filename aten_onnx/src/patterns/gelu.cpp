// GELU, exact (erf) or tanh-approximated, as ATen computes it: ONNX Gelu
// from opset 20, its formula below. In double the formula is written out:
// ONNX Runtime's Gelu of a double expands to its float-only Erf (the file
// would not load) or, approximated, is 5e-9 off; the exact form then uses
// emit_erf_double.
#include <cmath>

#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {

std::string emit_gelu(OnnxEmitter& e, const std::string& x, const std::string& approximate, int32_t dt) {
  const bool exact = approximate != "tanh", in_double = dt == onnx::TensorProto::DOUBLE;
  if (e.fused_ops && e.opset >= 20 && !in_double)
    return e.emit1("Gelu", {x}, {attr("approximate", std::string(exact ? "none" : "tanh"))});
  std::string half_x = e.emit1("Mul", {x, e.cscalar(0.5, dt)});
  std::string inner;
  if (!exact) {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    std::string x3 = e.emit1("Mul", {e.emit1("Mul", {x, x}), x});
    std::string s = e.emit1("Add", {x, e.emit1("Mul", {x3, e.cscalar(0.044715, dt)})});
    inner = e.emit1("Tanh", {e.emit1("Mul", {s, e.cscalar(std::sqrt(2.0 / M_PI), dt)})});
  } else {
    // 0.5 x (1 + erf(x / sqrt 2))
    const std::string w = e.emit1("Div", {x, e.cscalar(std::sqrt(2.0), dt)});
    inner = in_double ? emit_erf_double(e, w) : e.emit1("Erf", {w});
  }
  return e.emit1("Mul", {half_x, e.emit1("Add", {inner, e.cscalar(1.0, dt)})});
}

}  // namespace mx::aten_onnx
