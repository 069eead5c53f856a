// nextafter(self, other): the representable number next to self in the
// direction of other. ONNX reaches a float's bits only from opset 26
// (BitCast), so the step is computed: self's binade 2^e (floor(log2|x|),
// corrected where the logarithm rounds across a power of two, clamped at
// the smallest normal exponent where subnormals keep one spacing) gives
// the spacing 2^(e - p) of a format with p fraction bits; moving toward
// zero from an exact power of two the spacing is half that. x +- step is
// exact, so the result is bit for bit ATen's, subnormals and the overflow
// of the largest finite number to inf included; 0 steps to the smallest
// subnormal, +-inf to the largest finite, x == other gives other, NaN NaN.
// Halves are computed in float32 (exact: their steps are float32 numbers).
#include "mx/onnx_proto.hpp"

#include <cmath>
#include <limits>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

struct FloatFormat {
  int fraction_bits;
  int min_exponent;  // of a normal number
  double max_finite;
};

FloatFormat format_of(OpContext& cx, int32_t dt) {
  switch (dt) {
    case onnx::TensorProto::FLOAT:
      return {23, -126, std::numeric_limits<float>::max()};
    case onnx::TensorProto::DOUBLE:
      return {52, -1022, std::numeric_limits<double>::max()};
    case onnx::TensorProto::FLOAT16:
      return {10, -14, 65504.0};
    case onnx::TensorProto::BFLOAT16:
      return {7, -126, 3.3895313892515355e38};
    default:
      cx.unsupported("nextafter of a non-floating tensor");
  }
}

void lower_nextafter(OpContext& cx) {
  const int32_t out = cx.out_dtype();
  const FloatFormat f = format_of(cx, out);
  const int32_t dt = out == onnx::TensorProto::DOUBLE ? out : onnx::TensorProto::FLOAT;
  const std::string x = cx.operand("self", dt), y = cx.operand("other", dt);
  const std::string ax = cx.emit1("Abs", {x}), two = cx.cscalar(2, dt), one = cx.cscalar(1, dt);
  // e = floor(log2 |x|), then one step down or up where Log rounded across 2^e
  std::string e =
      cx.emit1("Floor", {cx.emit1("Div", {cx.emit1("Log", {ax}), cx.cscalar(std::log(2.0), dt)})});
  const std::string too_big = cx.emit1("Greater", {cx.emit1("Pow", {two, e}), ax});
  e = cx.emit1("Sub", {e, cx.cast(too_big, onnx::TensorProto::BOOL, dt)});
  const std::string too_small =
      cx.emit1("LessOrEqual", {cx.emit1("Mul", {two, cx.emit1("Pow", {two, e})}), ax});
  e = cx.emit1("Add", {e, cx.cast(too_small, onnx::TensorProto::BOOL, dt)});
  e = cx.emit1("Max", {e, cx.cscalar(f.min_exponent, dt)});  // subnormals and 0
  const std::string binade = cx.emit1("Pow", {two, e});
  const std::string spacing = cx.emit1("Pow", {two, cx.emit1("Sub", {e, cx.cscalar(f.fraction_bits, dt)})});
  const std::string zero = cx.cscalar(0, dt);
  const std::string up = cx.emit1("Greater", {y, x});
  const std::string away =
      cx.emit1("Or", {cx.emit1("And", {up, cx.emit1("Greater", {x, zero})}),
                      cx.emit1("And", {cx.emit1("Less", {y, x}), cx.emit1("Less", {x, zero})})});
  const std::string half = cx.emit1(
      "And",
      {cx.emit1("Not", {away}), cx.emit1("And", {cx.emit1("Equal", {ax, binade}),
                                                 cx.emit1("Greater", {e, cx.cscalar(f.min_exponent, dt)})})});
  const std::string step =
      cx.emit1("Where", {half, cx.emit1("Mul", {spacing, cx.cscalar(0.5, dt)}), spacing});
  std::string r = cx.emit1("Add", {x, cx.emit1("Where", {up, step, cx.emit1("Neg", {step})})});
  const std::string largest = cx.emit1("Mul", {cx.emit1("Sign", {x}), cx.cscalar(f.max_finite, dt)});
  r = cx.emit1("Where", {emit_is_inf(cx, x, dt, true, true), largest, r});
  r = cx.emit1("Where", {cx.emit1("Equal", {x, y}), y, r});
  const std::string nan = cx.emit1("Or", {emit_is_nan(cx, x, dt), emit_is_nan(cx, y, dt)});
  r = cx.emit1("Where", {nan, cx.emit1("Add", {x, y}), r});
  cx.out(0, cx.cast(r, dt, out));
}
MX_ATEN_LOWER(lower_nextafter, "aten.nextafter", "aten.nextafter_");

}  // namespace
}  // namespace mx::aten_onnx
