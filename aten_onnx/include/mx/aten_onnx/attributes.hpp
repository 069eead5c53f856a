// ONNX attribute and constant-tensor builders (no LibTorch).
#pragma once
#include "mx/onnx_proto.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mx::aten_onnx {

onnx::AttributeProto attr(const std::string& name, int64_t v);
onnx::AttributeProto attr(const std::string& name, float v);
onnx::AttributeProto attr(const std::string& name, const std::vector<int64_t>& v);
onnx::AttributeProto attr(const std::string& name, const std::vector<float>& v);
onnx::AttributeProto attr(const std::string& name, const std::string& v);
onnx::AttributeProto attr(const std::string& name, const onnx::TensorProto& v);
onnx::AttributeProto attr(const std::string& name, onnx::GraphProto g);  // a body of control flow

// Bytes per element of an ONNX tensor data type (0 for types without a
// fixed size, such as STRING).
size_t element_size(int32_t onnx_dtype);
bool is_floating(int32_t onnx_dtype);
bool is_signed_integer(int32_t onnx_dtype);
bool is_unsigned_integer(int32_t onnx_dtype);
// float16 / bfloat16 bits of a float, rounded to nearest even (as a
// runtime's Cast rounds), and the float a pair of bits stands for (exact).
uint16_t float16_bits(float v);
uint16_t bfloat16_bits(float v);
float float16_value(uint16_t bits);
float bfloat16_value(uint16_t bits);
// "float32", "int64", ... as PyTorch spells dtypes (for messages).
std::string dtype_name(int32_t onnx_dtype);

// A tensor constant of `dtype` with every element equal to `value`
// (converted as a C++ cast would; float16/bfloat16 rounded to nearest).
onnx::TensorProto filled_tensor(int32_t dtype, const std::vector<int64_t>& dims, double value);
// A 1-D (or 0-d when `scalar`) int64 tensor.
onnx::TensorProto int64_tensor(const std::vector<int64_t>& values, bool scalar = false);

}  // namespace mx::aten_onnx
