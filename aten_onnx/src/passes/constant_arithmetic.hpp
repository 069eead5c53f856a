// Element-wise arithmetic on small floating-point constants (float32,
// float64, float16, bfloat16): Add, Sub, Mul, Div, Neg, Abs, Sqrt,
// Reciprocal, Pow by 2 or 3, Max, Min, Clip, Floor, Ceil, and Cast between
// numeric types, evaluated so
// that the result is, bit for bit, what ONNX Runtime computes when it runs
// the node (constant_arithmetic.cpp says how); and Cos, Sin, Exp and Pow
// by other exponents, rounded from double (within an ulp of the runtime's:
// a signal window, a rotary table's or a timestep embedding's frequencies).
#pragma once
#include "mx/onnx_proto.hpp"

#include <cstdint>
#include <optional>
#include <vector>

#include "constant_data.hpp"

namespace mx::aten_onnx::passes {

// The value of `n`'s single output when `n` is one of the ops above on
// constants `in` and its result can be given exactly; nothing otherwise
// (another op or dtype, a NaN in the result, a Cast whose rounding depends
// on the runtime, more than `max_elements` elements).
std::optional<ConstantData> eval_float_arithmetic(const onnx::NodeProto& n,
                                                  const std::vector<const ConstantData*>& in,
                                                  int64_t max_elements);

}  // namespace mx::aten_onnx::passes
