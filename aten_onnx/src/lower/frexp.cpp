// frexp(self) -> (mantissa, exponent int32): x = mantissa 2^exponent with
// |mantissa| in [0.5, 1), as std::frexp (ATen's kernel). ONNX has no
// bitcast, so the exponent is floor(log2 |x|) + 1, corrected by one step
// either way where the log rounds across a power of two, and the mantissa
// x 2^-e, scaled in two exact halves (2^-e alone can leave the type's
// range). Subnormals are first scaled up by 2^64 (2^600 in double) so the
// log never sees one. 0, -0, +-inf and NaN give (x, 0), as ATen. Halves
// compute in float (exact: every step is a power-of-two scaling).
#include "mx/onnx_proto.hpp"

#include <cmath>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int32_t kDouble = onnx::TensorProto::DOUBLE;

void lower_frexp(OpContext& cx) {
  const int32_t out = cx.out_dtype(0), dt = out == kDouble ? kDouble : kFloat;
  const std::string x = cx.operand("self", dt);
  const std::string zero = cx.cscalar(0, dt), one = cx.cscalar(1, dt), two = cx.cscalar(2, dt);
  const double k = dt == kDouble ? 600 : 64;
  const double tiny = dt == kDouble ? std::ldexp(1.0, -900) : std::ldexp(1.0, -100);
  const std::string small = cx.emit1("Less", {cx.emit1("Abs", {x}), cx.cscalar(tiny, dt)});
  const std::string xs = cx.emit1(
      "Where", {small, cx.emit1("Mul", {x, cx.cscalar(std::ldexp(1.0, static_cast<int>(k)), dt)}), x});
  const std::string offset = cx.emit1("Where", {small, cx.cscalar(-k, dt), zero});
  std::string e =
      cx.emit1("Add", {cx.emit1("Floor", {cx.emit1("Div", {cx.emit1("Log", {cx.emit1("Abs", {xs})}),
                                                           cx.cscalar(std::log(2.0), dt)})}),
                       one});
  // 2^-e as 2^h1 2^h2
  const std::string ne = cx.emit1("Neg", {e});
  const std::string h1 = cx.emit1("Floor", {cx.emit1("Mul", {ne, cx.cscalar(0.5, dt)})});
  const std::string h2 = cx.emit1("Sub", {ne, h1});
  std::string m =
      cx.emit1("Mul", {cx.emit1("Mul", {xs, cx.emit1("Pow", {two, h1})}), cx.emit1("Pow", {two, h2})});
  // one step either way
  const std::string half = cx.cscalar(0.5, dt);
  const std::string up = cx.emit1("GreaterOrEqual", {cx.emit1("Abs", {m}), one});
  m = cx.emit1("Where", {up, cx.emit1("Mul", {m, half}), m});
  e = cx.emit1("Where", {up, cx.emit1("Add", {e, one}), e});
  const std::string down = cx.emit1("Less", {cx.emit1("Abs", {m}), half});
  m = cx.emit1("Where", {down, cx.emit1("Mul", {m, two}), m});
  e = cx.emit1("Where", {down, cx.emit1("Sub", {e, one}), e});
  e = cx.emit1("Add", {e, offset});
  // 0, inf, NaN: (x, 0)
  const std::string special = cx.emit1(
      "Or", {cx.emit1("Or", {cx.emit1("Equal", {x, zero}), emit_is_inf(cx, x, dt)}), emit_is_nan(cx, x, dt)});
  m = cx.emit1("Where", {special, x, m});
  e = cx.emit1("Where", {special, zero, e});
  cx.out(0, cx.cast(m, dt, out));
  cx.out(1, cx.cast(e, dt, cx.out_dtype(1)));
}
MX_ATEN_LOWER(lower_frexp, "aten.frexp");

}  // namespace
}  // namespace mx::aten_onnx
