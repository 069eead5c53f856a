// linalg_matrix_exp / matrix_exp: scaling and squaring with the degree-18
// Taylor polynomial, ATen's highest-degree branch: s = max(0, ceil(log2(
// |A|_1 / theta_18))) per matrix, T_18(A / 2^s) by Horner, then s
// squarings. ATen picks a lower degree for a smaller norm; every branch is
// accurate to rounding (the thetas bound the truncation error by the unit
// roundoff), so the results agree to rounding. The squarings are unrolled
// to kMaxSquarings, each applied where s exceeds its index; a matrix
// needing more (|A|_1 > theta_18 * 2^64) gives nan rather than a wrong value. The
// matrix size may be dynamic (no step is unrolled over it).
#include <cmath>
#include <limits>

#include "linalg_steps.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using namespace linalg;

// ATen's mexp thresholds of degree 18 (float, double): a norm below them
// bounds the truncation error by the unit roundoff.
constexpr double kTheta18Float = 3.010066362817634e+00;
constexpr double kTheta18Double = 1.090863719290036e+00;
constexpr int64_t kTaylorDegree = 18;
constexpr int64_t kMaxSquarings = 64;

// The identity of `a`'s matrix size ([n, n], n static or not).
std::string identity_of(OpContext& cx, const std::string& a, int64_t r, int32_t dt) {
  const std::string n = cx.emit1("Slice", {cx.shape_of(a), cx.ci64({r - 1}), cx.ci64({r}), cx.ci64({0})});
  const std::string i = cx.emit1("Range", {cx.ci64s(0), cx.squeeze(n, {0}), cx.ci64s(1)});
  return cx.cast(cx.emit1("Equal", {cx.unsqueeze(i, {1}), cx.unsqueeze(i, {0})}), onnx::TensorProto::BOOL,
                 dt);
}

void lower_matrix_exp(OpContext& cx) {
  const Value& a = cx.value_of("self");
  const std::string op = cx.op();
  if (a.dtype != onnx::TensorProto::FLOAT && a.dtype != onnx::TensorProto::DOUBLE)
    cx.unsupported(op + " of " + dtype_name(a.dtype) + " (float32 and float64 only)");
  const int64_t r = static_cast<int64_t>(a.shape.size());
  if (r < 2) cx.unsupported(op + " of a tensor of rank " + std::to_string(r) + " (a matrix needs 2 dims)");
  const int32_t dt = a.dtype;
  const std::string eye = identity_of(cx, a.onnx, r, dt);
  // the 1-norm (largest column sum of |a|) and the scaling s, [..., 1, 1]
  const std::string norm = emit_reduce(
      cx, "ReduceMax", emit_reduce(cx, "ReduceSum", cx.emit1("Abs", {a.onnx}), {r - 2}, true), {r - 1}, true);
  const std::string log2 = cx.emit1(
      "Div",
      {cx.emit1("Log", {cx.emit1("Div", {norm, cx.cscalar(dt == onnx::TensorProto::DOUBLE ? kTheta18Double
                                                                                          : kTheta18Float,
                                                          dt)})}),
       cx.cscalar(std::log(2.0), dt)});
  const std::string s = cx.emit1("Max", {cx.cscalar(0.0, dt), cx.emit1("Ceil", {log2})});
  const std::string scaled = cx.emit1("Div", {a.onnx, cx.emit1("Pow", {cx.cscalar(2.0, dt), s})});
  // T_18 by Horner on integer coefficients, 18! T = sum 18!/k! A^k: no
  // constant scalar next to a MatMul (ONNX Runtime folds one into a
  // float32 alpha, losing float64 precision)
  double factorial = 1.0;  // 18!/k!, exact in float64
  std::string p = eye;
  for (int64_t k = kTaylorDegree - 1; k >= 0; --k) {
    factorial *= static_cast<double>(k + 1);
    p = cx.emit1("Add", {cx.emit1("MatMul", {scaled, p}), cx.emit1("Mul", {eye, cx.cscalar(factorial, dt)})});
  }
  // 18! as a tensor of p's shape: a scalar constant would be folded into
  // the squarings' MatMul the same way
  p = cx.emit1("Div", {p, cx.emit1("Expand", {cx.cscalar(factorial, dt), cx.shape_of(p)})});
  for (int64_t i = 0; i < kMaxSquarings; ++i)
    p = cx.emit1("Where", {cx.emit1("Greater", {s, cx.cscalar(static_cast<double>(i), dt)}),
                           cx.emit1("MatMul", {p, p}), p});
  const std::string too_large = cx.emit1("Greater", {s, cx.cscalar(static_cast<double>(kMaxSquarings), dt)});
  cx.out(0, cx.emit1("Where", {too_large, cx.cscalar(std::numeric_limits<double>::quiet_NaN(), dt), p}));
}
MX_ATEN_LOWER(lower_matrix_exp, "aten.linalg_matrix_exp.default", "aten.matrix_exp.default");

}  // namespace
}  // namespace mx::aten_onnx
