// Writing a weight scaled per output channel (WeightBytes::scaled).
#pragma once
#include "mx/aten_onnx/weights.hpp"

namespace mx::aten_onnx {

// Hands w's float32 bytes, each slice i of dim 0 multiplied by
// scale[i], to `put` in order, a bounded chunk at a time; the mapped source
// pages are dropped once read (WeightBytes::file_mapped).
void scale_channels(const WeightBytes& w, const OutputPiece& put);

}  // namespace mx::aten_onnx
