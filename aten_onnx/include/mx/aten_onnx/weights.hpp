// Writing the weights of an exported model. While lowering, initializers
// carry name, type and dims only; the frontend keeps the bytes where they
// already are (a LibTorch tensor, a memory-mapped .pt2 archive) and hands
// them over here as spans. Their bytes then go either inline (raw_data, one
// copy) or straight from those spans into an ONNX external data file (no
// copy at all).
#pragma once
#include "mx/onnx_proto.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace mx::aten_onnx {

// Where a weight's bytes sit in the source model file, when they sit there
// as they are (a stored entry of a .pt2 archive): the output can then refer
// to them instead of carrying a copy (AssemblyOptions::weights_source).
inline constexpr uint64_t kNotInSource = ~0ull;

// A weight written in another layout than its source bytes: the output
// holds the source tensor (dims `source_dims`) permuted by `perm`, as ONNX
// Transpose permutes. The permuted bytes are produced while the weight is
// written, a bounded chunk at a time, so no full copy is ever held.
struct Permutation {
  std::vector<int64_t> perm, source_dims;
  size_t element_size = 0;
};

// A float32 weight written scaled: every element of the slice i of its
// dim 0 (an output channel of a Conv) multiplied by scale[i], a bounded
// chunk at a time (a BatchNormalization folded into its Conv).
struct ChannelScale {
  std::vector<float> scale;
};

// Bytes of one initializer, owned by the frontend until the model is written.
struct WeightBytes {
  const char* data = nullptr;
  uint64_t size = 0;
  uint64_t source_offset = kNotInSource;  // file offset of `data` in the source model
  std::optional<Permutation> permuted;    // set: written permuted (never by reference)
  std::optional<ChannelScale> scaled;     // set: written scaled (never by reference)
  // Written as other bytes than its source's (permuted or scaled).
  bool derived() const { return permuted.has_value() || scaled.has_value(); }
  // `data` lies in a read-only file mapping: once written out, its pages
  // may be dropped from memory (they are read again from the file if
  // needed), so streaming a model does not keep all of it resident.
  bool file_mapped = false;
};
using WeightMap = std::unordered_map<std::string, WeightBytes>;

// Tensors smaller than this stay inline in an external-data export (as the
// core's kExternalDataMinBytes and onnx's own converter do).
inline constexpr size_t kExternalMinBytes = 1024;

// Protobuf refuses messages of 2 GB and more; the host adds hierarchy
// records on every node, so keep the core's margin (persistence.cpp).
inline constexpr uint64_t kInlineLimit = 0x7fffffffull - (64ull << 20);

// A piece of a weight's output bytes: (offset in the tensor, bytes, count).
using OutputPiece = std::function<void(uint64_t, const char*, uint64_t)>;

// Hands the bytes `w` is written as to `put`, piece by piece, together
// covering [0, w.size) once, not necessarily in order: its own bytes, or
// their permutation (Permutation) or scaling (ChannelScale) built a bounded
// piece at a time. The
// mapped pages of a file_mapped weight are dropped as they are consumed.
void for_each_output_piece(const WeightBytes& w, const OutputPiece& put);

// Bytes of the weights of the graph's initializers.
uint64_t weight_bytes(const onnx::GraphProto& g, const WeightMap& data);

// raw_data of every initializer from its bytes.
void inline_weights(onnx::GraphProto& g, const WeightMap& data);

// Streams every initializer of at least kExternalMinBytes into `data_path`
// (created; MX_ERR_IO on any write error, the partial file removed) and
// points it there (data_location EXTERNAL, location = `location`, offset,
// length); smaller ones get raw_data. Returns the bytes written.
uint64_t write_external_weights(onnx::GraphProto& g, const WeightMap& data, const std::string& data_path,
                                const std::string& location);

// Points every initializer of at least kExternalMinBytes whose bytes sit in
// the source model file at them: data_location EXTERNAL, location =
// `source_location`, offset, length (docs/plugin-protocol.md,
// "weights_by_reference"). With a `permuted_path` (a file of the host's
// output_dir, "output_dir_references"), derived (permuted or scaled) weights of that size are
// streamed into it (created; MX_ERR_IO on a write error, the partial file
// removed) and referred to there by that path. The others get
// raw_data. Returns the bytes left inline.
uint64_t refer_to_source(onnx::GraphProto& g, const WeightMap& data, const std::string& source_location,
                         const std::string& permuted_path = "");

// Writes `bytes` to `path` (MX_ERR_IO; nothing left behind on failure).
void write_file(const std::string& path, const std::string& bytes);

}  // namespace mx::aten_onnx
