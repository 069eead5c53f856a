// log1p written out: ONNX has no Log1p, and Log(1 + u) loses u's digits
// near 0. Shared by log1p itself (lower/special.cpp) and the inverse
// hyperbolic functions in double (double_trig.cpp).
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {

// log1p(u) = log(w) u / (w - 1) with w = 1 + u (Goldberg): exact where
// Log(1 + u) alone loses u's digits; u itself where w rounds to 1.
std::string emit_log1p(OnnxEmitter& e, const std::string& u, int32_t dt) {
  const std::string one = e.cscalar(1, dt);
  const std::string w = e.emit1("Add", {one, u});
  // log(w) times u / (w - 1) (~1): log(w) u alone overflows for u near the largest float
  const std::string ratio =
      e.emit1("Mul", {e.emit1("Log", {w}), e.emit1("Div", {u, e.emit1("Sub", {w, one})})});
  const std::string exact = e.emit1("Where", {e.emit1("Equal", {w, one}), u, ratio});
  return e.emit1("Where", {emit_is_inf(e, u, dt, true, false), u, exact});  // log1p(inf) = inf
}

}  // namespace mx::aten_onnx
