// The two series forms of the Cephes kernels ATen's special functions
// (ATen/native/Math.h) evaluate, written in ONNX in the same order of
// operations so that a float32 result rounds as ATen's float kernel does
// (bessel.cpp, airy.cpp). The coefficients stay the kernels' own tables.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "mx/aten_onnx/op_context.hpp"
#include "mx/onnx_proto.hpp"

namespace mx::aten_onnx::cephes {

// polevl: c[0] t^(N-1) + ... + c[N-1] by Horner, as ATen's loops
// `r = r * t + c[i]` starting from r = 0 (the first step is c[0] itself).
template <size_t N>
std::string horner(OnnxEmitter& e, const std::string& t, const double (&c)[N], int32_t dt) {
  std::string r = e.cscalar(c[0], dt);
  for (size_t i = 1; i < N; ++i) r = e.emit1("Add", {e.emit1("Mul", {r, t}), e.cscalar(c[i], dt)});
  return r;
}

// chbevl: the Chebyshev series sum' c[i] T_(N-1-i)(y / 2), c[0] the
// highest term, as Cephes' Clenshaw loop: b0 = c[0]; then b2 = b1, b1 = b0,
// b0 = y b1 - b2 + c[i]; the value (b0 - b2) / 2.
template <size_t N>
std::string chbevl(OnnxEmitter& e, const std::string& y, const double (&c)[N], int32_t dt) {
  std::string b0 = e.cscalar(c[0], dt), b1 = e.cscalar(0, dt), b2;
  for (size_t i = 1; i < N; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = e.emit1("Add", {e.emit1("Sub", {e.emit1("Mul", {y, b1}), b2}), e.cscalar(c[i], dt)});
  }
  return e.emit1("Mul", {e.cscalar(0.5, dt), e.emit1("Sub", {b0, b2})});
}

// The compute type of ATen's float kernels: double for double, float32 for
// every other input (integers are promoted to the default float type).
inline int32_t kernel_dtype(int32_t out) {
  return out == onnx::TensorProto::DOUBLE ? onnx::TensorProto::DOUBLE : onnx::TensorProto::FLOAT;
}

// The one tensor argument of a special function: ATen names it `self` for
// some (special_bessel_j0) and `x` for others (special_airy_ai).
inline const char* unary_input(OpContext& cx) {
  return cx.has("self") ? "self" : "x";
}

}  // namespace mx::aten_onnx::cephes
