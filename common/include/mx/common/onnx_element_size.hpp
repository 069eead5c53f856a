// Bytes per element of an ONNX tensor type, keyed by the type's number in
// onnx.proto (TensorProto.DataType), so that layers without the ONNX
// library (this one) and layers with it read one table.
#pragma once
#include <cstddef>
#include <cstdint>

namespace mx::common {

// Bytes per element in raw_data; 0 for types without a fixed byte size
// (UNDEFINED, STRING, the packed 4- and 2-bit types, numbers unknown here).
size_t onnx_element_size(int32_t onnx_data_type);

}  // namespace mx::common
