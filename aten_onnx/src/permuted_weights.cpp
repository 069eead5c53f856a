// Writing a weight permuted (WeightBytes::permuted) without a full copy:
// the output is produced in chunks of whole output rows into one bounded
// buffer. Rank 2 (a Linear weight) is tiled so the source is read along
// its rows; other ranks walk the output index with an odometer.
#include <algorithm>
#include <cstring>
#include <string>

#include "modelexport/modelexport.h"
#include "mx/aten_onnx/error.hpp"
#include "mx/aten_onnx/weights.hpp"

namespace mx::aten_onnx {
namespace {

constexpr uint64_t kChunkBytes = 4u << 20;

// out[i][j] = src[j][i] for a source of rows x cols; output rows are chunked.
void transpose_2d(const WeightBytes& w, const std::function<void(const char*, uint64_t)>& sink) {
  const auto& p = *w.permuted;
  const uint64_t rows = static_cast<uint64_t>(p.source_dims[0]), cols = static_cast<uint64_t>(p.source_dims[1]);
  const size_t es = p.element_size;
  const uint64_t out_row = rows * es;  // an output row is a source column
  const uint64_t chunk_rows = std::max<uint64_t>(1, kChunkBytes / std::max<uint64_t>(out_row, 1));
  std::string buf;
  for (uint64_t c0 = 0; c0 < cols; c0 += chunk_rows) {
    const uint64_t n = std::min(chunk_rows, cols - c0);
    buf.resize(n * out_row);
    for (uint64_t r = 0; r < rows; ++r) {
      const char* src = w.data + (r * cols + c0) * es;
      for (uint64_t k = 0; k < n; ++k) std::memcpy(&buf[k * out_row + r * es], src + k * es, es);
    }
    sink(buf.data(), buf.size());
  }
}

void permute_nd(const WeightBytes& w, const std::function<void(const char*, uint64_t)>& sink) {
  const auto& p = *w.permuted;
  const size_t rank = p.perm.size(), es = p.element_size;
  std::vector<uint64_t> src_stride(rank, 1), out_dims(rank), step(rank);
  for (size_t d = rank; d-- > 1;) src_stride[d - 1] = src_stride[d] * static_cast<uint64_t>(p.source_dims[d]);
  for (size_t d = 0; d < rank; ++d) {
    out_dims[d] = static_cast<uint64_t>(p.source_dims[static_cast<size_t>(p.perm[d])]);
    step[d] = src_stride[static_cast<size_t>(p.perm[d])];
  }
  std::vector<uint64_t> idx(rank, 0);
  uint64_t src = 0;
  const uint64_t total = w.size / es;
  std::string buf;
  buf.reserve(std::min<uint64_t>(kChunkBytes, w.size));
  for (uint64_t e = 0; e < total; ++e) {
    buf.append(w.data + src * es, es);
    if (buf.size() >= kChunkBytes) {
      sink(buf.data(), buf.size());
      buf.clear();
    }
    for (size_t d = rank; d-- > 0;) {  // odometer over the output index
      src += step[d];
      if (++idx[d] < out_dims[d]) break;
      src -= step[d] * out_dims[d];
      idx[d] = 0;
    }
  }
  if (!buf.empty()) sink(buf.data(), buf.size());
}

}  // namespace

void for_each_output_chunk(const WeightBytes& w, const std::function<void(const char*, uint64_t)>& sink) {
  if (!w.permuted) {
    sink(w.data, w.size);
    return;
  }
  const auto& p = *w.permuted;
  uint64_t numel = 1;
  for (auto d : p.source_dims) numel *= static_cast<uint64_t>(d);
  if (p.element_size == 0 || p.perm.size() != p.source_dims.size() || numel * p.element_size != w.size)
    throw Error(MX_ERR_INTERNAL, "internal: a permuted weight's dims do not match its bytes");
  if (w.size == 0) return;
  if (p.perm.size() == 2 && p.perm[0] == 1 && p.perm[1] == 0) transpose_2d(w, sink);
  else permute_nd(w, sink);
}

}  // namespace mx::aten_onnx
