// The pair layout of complex values (lower/fft.cpp): a complex tensor of
// PyTorch shape S is a real [S..., 2] of (real, imaginary). What the
// complex lowerings of several families share (complex_math.cpp,
// complex_pow.cpp, complex_reduce.cpp, complex_views.cpp).
#pragma once
#include <cstdint>
#include <string>

#include "mx/aten_onnx/op_context.hpp"
#include "mx/onnx_proto.hpp"

namespace mx::aten_onnx::pairs {

inline bool is_complex(int32_t dt) {
  return dt == onnx::TensorProto::COMPLEX64 || dt == onnx::TensorProto::COMPLEX128;
}

// The real element type of a complex one: FLOAT for COMPLEX64, DOUBLE for
// COMPLEX128.
inline int32_t component(int32_t complex_dtype) {
  return complex_dtype == onnx::TensorProto::COMPLEX128 ? onnx::TensorProto::DOUBLE
                                                        : onnx::TensorProto::FLOAT;
}

// The real (k = 0) or imaginary (k = 1) part of a pair-layout tensor of
// any rank, keeping the pair axis as a 1: [..., 1].
inline std::string part(OnnxEmitter& e, const std::string& z, int64_t k) {
  return e.emit1("Slice", {z, e.ci64({k}), e.ci64({k + 1}), e.ci64({-1})});
}

// Two [..., 1] parts as a pair-layout tensor.
inline std::string join(OnnxEmitter& e, const std::string& re, const std::string& im) {
  return e.emit1("Concat", {re, im}, {attr("axis", int64_t{-1})});
}

// A real x of rank r as the complex (x, 0): [..., 2].
inline std::string real_as_pair(OnnxEmitter& e, const std::string& x, int64_t r) {
  std::vector<int64_t> pads(2 * (r + 1), 0);
  pads.back() = 1;
  return e.emit1("Pad", {e.unsqueeze(x, {r}), e.ci64(pads)});
}

// Any operand of a complex op in the pair layout, its components of `dt`:
// a complex tensor as it is, a real tensor as (x, 0), a Python number or
// complex number as a [2] that broadcasts against [..., 2].
std::string operand(OpContext& cx, const std::string& name, int32_t dt);

// |z| of the parts a, b (same shape), free of overflow and underflow of the
// squares: m sqrt((a/m)^2 + (b/m)^2), m = max(|a|, |b|).
std::string modulus(OnnxEmitter& e, const std::string& a, const std::string& b, int32_t dt);

// Element-wise on pair-layout tensors (broadcasting), components of `dt`:
// x y as ATen multiplies, (ac - bd) + i(ad + bc); the principal square
// root as C's csqrt; 1 / z as c10::complex divides (Smith's algorithm).
std::string product(OnnxEmitter& e, const std::string& x, const std::string& y);
std::string sqrt(OnnxEmitter& e, const std::string& z, int32_t dt);
std::string reciprocal(OnnxEmitter& e, const std::string& z, int32_t dt);

}  // namespace mx::aten_onnx::pairs
