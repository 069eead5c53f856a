// Dropping a weight's mapped source pages once a streaming writer has read
// them, so a transposed or scaled copy never keeps the source resident.
#pragma once
#include <cstdint>

#include "mx/aten_onnx/weights.hpp"

namespace mx::aten_onnx {

// Drops the mapped pages of w's bytes [offset, offset + length) once read
// (WeightBytes::file_mapped); advice only, errors ignored. Pages shared
// with a neighbour are read again from the file if it needs them.
void release_mapped_pages(const WeightBytes& w, uint64_t offset, uint64_t length);

}  // namespace mx::aten_onnx
