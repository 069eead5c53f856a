#include "mx/aten_onnx/attributes.hpp"

#include <cmath>
#include <cstring>
#include <utility>

#include "mx/aten_onnx/error.hpp"
#include "mx/common/onnx_element_size.hpp"
#include "modelexport/modelexport.h"

namespace mx::aten_onnx {

onnx::AttributeProto attr(const std::string& n, int64_t v) {
  onnx::AttributeProto a;
  a.set_name(n);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(v);
  return a;
}
onnx::AttributeProto attr(const std::string& n, float v) {
  onnx::AttributeProto a;
  a.set_name(n);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(v);
  return a;
}
onnx::AttributeProto attr(const std::string& n, const std::vector<int64_t>& v) {
  onnx::AttributeProto a;
  a.set_name(n);
  a.set_type(onnx::AttributeProto::INTS);
  for (auto x : v) a.add_ints(x);
  return a;
}
onnx::AttributeProto attr(const std::string& n, const std::vector<float>& v) {
  onnx::AttributeProto a;
  a.set_name(n);
  a.set_type(onnx::AttributeProto::FLOATS);
  for (auto x : v) a.add_floats(x);
  return a;
}
onnx::AttributeProto attr(const std::string& n, const std::string& v) {
  onnx::AttributeProto a;
  a.set_name(n);
  a.set_type(onnx::AttributeProto::STRING);
  a.set_s(v);
  return a;
}
onnx::AttributeProto attr(const std::string& n, const onnx::TensorProto& v) {
  onnx::AttributeProto a;
  a.set_name(n);
  a.set_type(onnx::AttributeProto::TENSOR);
  *a.mutable_t() = v;
  return a;
}

onnx::AttributeProto attr(const std::string& n, onnx::GraphProto g) {
  onnx::AttributeProto a;
  a.set_name(n);
  a.set_type(onnx::AttributeProto::GRAPH);
  *a.mutable_g() = std::move(g);
  return a;
}

size_t element_size(int32_t t) {
  return mx::common::onnx_element_size(t);
}

bool is_floating(int32_t t) {
  return t == onnx::TensorProto::FLOAT || t == onnx::TensorProto::DOUBLE || t == onnx::TensorProto::FLOAT16 ||
         t == onnx::TensorProto::BFLOAT16;
}

bool is_signed_integer(int32_t t) {
  return t == onnx::TensorProto::INT8 || t == onnx::TensorProto::INT16 || t == onnx::TensorProto::INT32 ||
         t == onnx::TensorProto::INT64;
}

bool is_unsigned_integer(int32_t t) {
  return t == onnx::TensorProto::UINT8 || t == onnx::TensorProto::UINT16 || t == onnx::TensorProto::UINT32 ||
         t == onnx::TensorProto::UINT64;
}

std::string dtype_name(int32_t t) {
  switch (t) {
    case onnx::TensorProto::FLOAT:
      return "float32";
    case onnx::TensorProto::DOUBLE:
      return "float64";
    case onnx::TensorProto::FLOAT16:
      return "float16";
    case onnx::TensorProto::BFLOAT16:
      return "bfloat16";
    case onnx::TensorProto::INT64:
      return "int64";
    case onnx::TensorProto::INT32:
      return "int32";
    case onnx::TensorProto::INT16:
      return "int16";
    case onnx::TensorProto::INT8:
      return "int8";
    case onnx::TensorProto::UINT8:
      return "uint8";
    case onnx::TensorProto::BOOL:
      return "bool";
    default:
      return "onnx-type-" + std::to_string(t);
  }
}

// IEEE binary16 from a float, round to nearest even (subnormals included).
uint16_t float16_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;  // may carry into the exponent: correct
  return static_cast<uint16_t>(half);
}

uint16_t bfloat16_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f)) return 0x7fc0;
  x += 0x7fffu + ((x >> 16) & 1u);  // round to nearest even
  return static_cast<uint16_t>(x >> 16);
}

float float16_value(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  } else {  // zero or subnormal: mant * 2^-24, exact in float
    const float v = std::ldexp(static_cast<float>(mant), -24);
    std::memcpy(&x, &v, 4);
    x |= sign;
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

float bfloat16_value(uint16_t b) {
  const uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

namespace {

template <typename T>
void append(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void append_value(std::string& out, int32_t dtype, double v) {
  switch (dtype) {
    case onnx::TensorProto::FLOAT:
      append(out, static_cast<float>(v));
      return;
    case onnx::TensorProto::DOUBLE:
      append(out, v);
      return;
    case onnx::TensorProto::FLOAT16:
      append(out, float16_bits(static_cast<float>(v)));
      return;
    case onnx::TensorProto::BFLOAT16:
      append(out, bfloat16_bits(static_cast<float>(v)));
      return;
    case onnx::TensorProto::INT64:
      append(out, static_cast<int64_t>(v));
      return;
    case onnx::TensorProto::INT32:
      append(out, static_cast<int32_t>(v));
      return;
    case onnx::TensorProto::INT16:
      append(out, static_cast<int16_t>(v));
      return;
    case onnx::TensorProto::INT8:
      append(out, static_cast<int8_t>(v));
      return;
    case onnx::TensorProto::UINT8:
      append(out, static_cast<uint8_t>(v));
      return;
    case onnx::TensorProto::BOOL:
      append(out, static_cast<uint8_t>(v != 0));
      return;
    default:
      throw Error(MX_ERR_UNSUPPORTED, "no constant of dtype " + dtype_name(dtype));
  }
}

}  // namespace

onnx::TensorProto filled_tensor(int32_t dtype, const std::vector<int64_t>& dims, double value) {
  onnx::TensorProto t;
  t.set_data_type(dtype);
  int64_t n = 1;
  for (auto d : dims) {
    t.add_dims(d);
    n *= d;
  }
  std::string raw;
  raw.reserve(static_cast<size_t>(n) * element_size(dtype));
  for (int64_t k = 0; k < n; ++k) append_value(raw, dtype, value);
  t.set_raw_data(std::move(raw));
  return t;
}

onnx::TensorProto int64_tensor(const std::vector<int64_t>& values, bool scalar) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  if (!scalar) t.add_dims(static_cast<int64_t>(values.size()));
  std::string raw;
  for (auto v : values) append(raw, v);
  t.set_raw_data(std::move(raw));
  return t;
}

}  // namespace mx::aten_onnx
