// The permutation is built a chunk of whole output rows at a time for rank
// 2 (a Linear weight), so it is written in order and in large writes, each
// chunk from blocks of source rows released once read; other ranks walk
// the output index with an odometer.
#include "mx/common/derived_bytes.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace mx::common {
namespace {

// Output bytes built and handed out at once.
constexpr uint64_t kChunkBytes = 16u << 20;
// Source rows read per block: the mapped pages resident at a time.
constexpr uint64_t kBlockBytes = 8u << 20;
// float32 elements scaled per piece.
constexpr uint64_t kScaleChunkElements = 1u << 20;

// Tile edge of the transpose: a tile's source rows and output rows (32
// elements each) stay in L1 together, so neither side is walked a whole
// row apart (rows 4 KiB apart all map to the same cache sets).
constexpr uint64_t kTile = 32;

// out[k * stride + r] = src[r][c0 + k] for r < rows, k < n; src rows are
// `cols` long. T: an element of the weight's size.
template <typename T>
void transpose_tiles(const char* data, uint64_t rows, uint64_t cols, uint64_t c0, uint64_t n, char* out,
                     uint64_t stride) {
  const T* src = reinterpret_cast<const T*>(data);
  T* dst = reinterpret_cast<T*>(out);
  for (uint64_t r0 = 0; r0 < rows; r0 += kTile) {
    const uint64_t r1 = std::min(rows, r0 + kTile);
    for (uint64_t k0 = 0; k0 < n; k0 += kTile) {
      const uint64_t k1 = std::min(n, k0 + kTile);
      for (uint64_t r = r0; r < r1; ++r) {
        const T* s = src + r * cols + c0;
        for (uint64_t k = k0; k < k1; ++k) std::memcpy(dst + k * stride + r, s + k, sizeof(T));
      }
    }
  }
}

#if defined(__SSE2__)
// 4 x 4 blocks of 32-bit elements in registers: the scalar walk above
// moves one element per load and store.
void transpose_tiles_32(const char* data, uint64_t rows, uint64_t cols, uint64_t c0, uint64_t n, char* out,
                        uint64_t stride) {
  const uint32_t* src = reinterpret_cast<const uint32_t*>(data);
  uint32_t* dst = reinterpret_cast<uint32_t*>(out);
  const uint64_t rows4 = rows & ~uint64_t{3}, n4 = n & ~uint64_t{3};
  for (uint64_t r0 = 0; r0 < rows4; r0 += kTile) {
    const uint64_t r1 = std::min(rows4, r0 + kTile);
    for (uint64_t k0 = 0; k0 < n4; k0 += kTile) {
      const uint64_t k1 = std::min(n4, k0 + kTile);
      for (uint64_t r = r0; r < r1; r += 4) {
        const uint32_t* s = src + r * cols + c0;
        for (uint64_t k = k0; k < k1; k += 4) {
          const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k));
          const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + cols + k));
          const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 2 * cols + k));
          const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 3 * cols + k));
          const __m128i ab0 = _mm_unpacklo_epi32(a, b), cd0 = _mm_unpacklo_epi32(c, d);
          const __m128i ab1 = _mm_unpackhi_epi32(a, b), cd1 = _mm_unpackhi_epi32(c, d);
          uint32_t* o = dst + k * stride + r;
          _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm_unpacklo_epi64(ab0, cd0));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(o + stride), _mm_unpackhi_epi64(ab0, cd0));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 2 * stride), _mm_unpacklo_epi64(ab1, cd1));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 3 * stride), _mm_unpackhi_epi64(ab1, cd1));
        }
      }
    }
  }
  // The edges past the last whole 4 x 4 block, one element at a time.
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t k = r < rows4 ? n4 : 0; k < n; ++k) dst[k * stride + r] = src[r * cols + c0 + k];
}
#endif

template <size_t N>
struct Element {
  char b[N];
};

void transpose_part(size_t es, const char* data, uint64_t rows, uint64_t cols, uint64_t c0, uint64_t n,
                    char* out, uint64_t stride) {
  switch (es) {
    case 1:
      return transpose_tiles<uint8_t>(data, rows, cols, c0, n, out, stride);
    case 2:
      return transpose_tiles<uint16_t>(data, rows, cols, c0, n, out, stride);
#if defined(__SSE2__)
    case 4:
      return transpose_tiles_32(data, rows, cols, c0, n, out, stride);
#else
    case 4:
      return transpose_tiles<uint32_t>(data, rows, cols, c0, n, out, stride);
#endif
    case 8:
      return transpose_tiles<uint64_t>(data, rows, cols, c0, n, out, stride);
    case 16:
      return transpose_tiles<Element<16>>(data, rows, cols, c0, n, out, stride);
    default:
      for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t k = 0; k < n; ++k)
          std::memcpy(out + (k * stride + r) * es, data + (r * cols + c0 + k) * es, es);
  }
}

void release(const SourceDone& done, uint64_t offset, uint64_t size) {
  if (done && size) done(offset, size);
}

// out[c][r] = src[r][c] for a source of rows x cols, in chunks of whole
// output rows; within a chunk, block by block of source rows.
void transpose_2d(const char* src, uint64_t size, const Permutation& p, const BytePiece& put,
                  const SourceDone& done) {
  const uint64_t rows = static_cast<uint64_t>(p.source_dims[0]),
                 cols = static_cast<uint64_t>(p.source_dims[1]);
  const size_t es = p.element_size;
  const uint64_t row_bytes = cols * es, out_row = rows * es;
  const uint64_t chunk_rows = std::max<uint64_t>(1, kChunkBytes / out_row);    // output rows
  const uint64_t block_rows = std::max<uint64_t>(1, kBlockBytes / row_bytes);  // source rows
  std::string buf;
  for (uint64_t c0 = 0; c0 < cols; c0 += chunk_rows) {
    const uint64_t n = std::min(chunk_rows, cols - c0);
    buf.resize(n * out_row);
    for (uint64_t r0 = 0; r0 < rows; r0 += block_rows) {
      const uint64_t b = std::min(block_rows, rows - r0);
      transpose_part(es, src + r0 * row_bytes, b, cols, c0, n, buf.data() + r0 * es, rows);
      if (block_rows < rows) release(done, r0 * row_bytes, b * row_bytes);
    }
    put(c0 * out_row, buf.data(), buf.size());
  }
  release(done, 0, size);
}

void permute_nd(const char* src_bytes, uint64_t size, const Permutation& p, const BytePiece& put,
                const SourceDone& done) {
  const size_t rank = p.perm.size(), es = p.element_size;
  std::vector<uint64_t> src_stride(rank, 1), out_dims(rank), step(rank);
  for (size_t d = rank; d-- > 1;) src_stride[d - 1] = src_stride[d] * static_cast<uint64_t>(p.source_dims[d]);
  for (size_t d = 0; d < rank; ++d) {
    out_dims[d] = static_cast<uint64_t>(p.source_dims[static_cast<size_t>(p.perm[d])]);
    step[d] = src_stride[static_cast<size_t>(p.perm[d])];
  }
  std::vector<uint64_t> idx(rank, 0);
  uint64_t src = 0, written = 0;
  const uint64_t total = size / es;
  std::string buf;
  buf.reserve(std::min<uint64_t>(kChunkBytes, size));
  for (uint64_t e = 0; e < total; ++e) {
    buf.append(src_bytes + src * es, es);
    if (buf.size() >= kChunkBytes) {
      put(written, buf.data(), buf.size());
      written += buf.size();
      buf.clear();
    }
    for (size_t d = rank; d-- > 0;) {  // odometer over the output index
      src += step[d];
      if (++idx[d] < out_dims[d]) break;
      src -= step[d] * out_dims[d];
      idx[d] = 0;
    }
  }
  if (!buf.empty()) put(written, buf.data(), buf.size());
  release(done, 0, size);
}

void scale_channels(const char* src, uint64_t size, const ChannelScale& s, const BytePiece& put,
                    const SourceDone& done) {
  const uint64_t numel = size / sizeof(float);
  const uint64_t per_channel = numel / s.scale.size();
  std::vector<float> buf;
  for (uint64_t at = 0; at < numel; at += kScaleChunkElements) {
    const uint64_t n = std::min(kScaleChunkElements, numel - at);
    buf.resize(n);
    std::memcpy(buf.data(), src + at * sizeof(float), n * sizeof(float));
    for (uint64_t k = 0; k < n; ++k) buf[k] *= s.scale[(at + k) / per_channel];
    put(at * sizeof(float), reinterpret_cast<const char*>(buf.data()), n * sizeof(float));
    release(done, at * sizeof(float), n * sizeof(float));
  }
}

std::optional<const char*> permutation_problem(const Permutation& p, uint64_t size) {
  const size_t rank = p.perm.size();
  if (p.element_size == 0) return "an element size of 0";
  if (rank != p.source_dims.size()) return "a perm whose rank is not the source dims'";
  std::vector<bool> seen(rank, false);
  for (int64_t d : p.perm) {
    if (d < 0 || static_cast<size_t>(d) >= rank || seen[static_cast<size_t>(d)])
      return "a perm that is not a permutation of the dims";
    seen[static_cast<size_t>(d)] = true;
  }
  uint64_t numel = 1;
  for (int64_t d : p.source_dims) {
    if (d < 0) return "a negative source dim";
    if (d != 0 && numel > (UINT64_C(1) << 62) / static_cast<uint64_t>(d)) return "dims past 2^62 elements";
    numel *= static_cast<uint64_t>(d);
  }
  if (numel > UINT64_MAX / p.element_size || numel * p.element_size != size)
    return "dims whose elements are not the bytes";
  return std::nullopt;
}

}  // namespace

std::optional<const char*> derivation_problem(const Derivation& d, uint64_t size) {
  if (d.permuted && d.scaled) return "both a permutation and a channel scale";
  if (d.permuted) return permutation_problem(*d.permuted, size);
  if (d.scaled) {
    const uint64_t numel = size / sizeof(float);
    if (d.scaled->scale.empty() || size % sizeof(float) != 0 || numel % d.scaled->scale.size() != 0)
      return "a channel scale whose count does not divide the float32 elements";
  }
  return std::nullopt;
}

void for_each_derived_piece(const char* src, uint64_t size, const Derivation& d, const BytePiece& put,
                            const SourceDone& done) {
  if (auto problem = derivation_problem(d, size))
    throw std::invalid_argument(std::string("derived bytes: ") + *problem);
  if (size == 0) return;
  if (d.scaled) return scale_channels(src, size, *d.scaled, put, done);
  if (!d.permuted) {
    put(0, src, size);
    return release(done, 0, size);
  }
  const Permutation& p = *d.permuted;
  if (p.perm.size() == 2 && p.perm[0] == 1 && p.perm[1] == 0) transpose_2d(src, size, p, put, done);
  else permute_nd(src, size, p, put, done);
}

}  // namespace mx::common
