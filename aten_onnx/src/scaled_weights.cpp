// A BatchNormalization folded into its Conv scales each output channel of
// the Conv's weight. The scaled bytes are built a chunk at a time from the
// source bytes, as the permuted ones are, so the weight is never held
// twice nor resident whole.
#include "scaled_weights.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "modelexport/modelexport.h"
#include "mapped_pages.hpp"
#include "mx/aten_onnx/error.hpp"

namespace mx::aten_onnx {
namespace {

constexpr uint64_t kChunkElements = 1u << 20;  // 4 MiB of float32 per piece

}  // namespace

void scale_channels(const WeightBytes& w, const OutputPiece& put) {
  const auto& scale = w.scaled->scale;
  const uint64_t numel = w.size / sizeof(float);
  if (scale.empty() || w.size % sizeof(float) != 0 || numel % scale.size() != 0)
    throw Error(MX_ERR_INTERNAL, "internal: a scaled weight's channels do not divide its bytes");
  const uint64_t per_channel = numel / scale.size();
  std::vector<float> buf;
  for (uint64_t at = 0; at < numel; at += kChunkElements) {
    const uint64_t n = std::min(kChunkElements, numel - at);
    buf.resize(n);
    std::memcpy(buf.data(), w.data + at * sizeof(float), n * sizeof(float));
    for (uint64_t k = 0; k < n; ++k) buf[k] *= scale[(at + k) / per_channel];
    put(at * sizeof(float), reinterpret_cast<const char*>(buf.data()), n * sizeof(float));
    release_mapped_pages(w, at * sizeof(float), n * sizeof(float));
  }
}

}  // namespace mx::aten_onnx
