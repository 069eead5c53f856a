// erfinv: ONNX has no inverse error function, so it is written out as
// M. Giles' single-precision approximation ("Approximating the erfinv
// function", GPU Computing Gems, 2011): with w = -log((1 - x)(1 + x)), one
// polynomial in w - 2.5 where w < 5 and another in sqrt(w) - 3 beyond, times
// x. Its error is a few float32 ulps, which is as close as ATen's own
// float kernel gets; double inputs are computed in float32 as well (ONNX
// Runtime's Erf, which a Newton refinement would need, is float-only).
// x = +-1 gives +-inf as ATen does; |x| > 1 gives NaN from the log.
#include "mx/onnx_proto.hpp"

#include <limits>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

// Horner's rule: c[0] * t^(n-1) + ... + c[n-1].
std::string polynomial(OpContext& cx, const std::string& t, const std::vector<double>& c) {
  std::string p = cx.cscalar(c[0], kFloat);
  for (size_t i = 1; i < c.size(); ++i)
    p = cx.emit1("Add", {cx.cscalar(c[i], kFloat), cx.emit1("Mul", {p, t})});
  return p;
}

void lower_erfinv(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", kFloat);
  const std::string one = cx.cscalar(1, kFloat);
  const std::string w = cx.emit1(
      "Neg", {cx.emit1("Log", {cx.emit1("Mul", {cx.emit1("Sub", {one, x}), cx.emit1("Add", {one, x})})})});
  const std::string near =
      polynomial(cx, cx.emit1("Sub", {w, cx.cscalar(2.5, kFloat)}),
                 {2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941});
  const std::string tail = polynomial(cx, cx.emit1("Sub", {cx.emit1("Sqrt", {w}), cx.cscalar(3, kFloat)}),
                                      {-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                                       0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682});
  const std::string p = cx.emit1("Where", {cx.emit1("Less", {w, cx.cscalar(5, kFloat)}), near, tail});
  const std::string y = cx.emit1("Mul", {p, x});
  // At |x| = 1 both polynomials see w = inf and lose the sign.
  const std::string at_edge = cx.emit1("Equal", {cx.emit1("Abs", {x}), one});
  const std::string edge = cx.emit1("Mul", {x, cx.cscalar(std::numeric_limits<double>::infinity(), kFloat)});
  cx.out(0, cx.cast(cx.emit1("Where", {at_edge, edge, y}), kFloat, dt));
}
MX_ATEN_LOWER(lower_erfinv, "aten.erfinv");

}  // namespace
}  // namespace mx::aten_onnx
