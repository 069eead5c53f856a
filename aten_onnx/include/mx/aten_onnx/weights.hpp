// Writing the weights of an exported model. While lowering, initializers
// carry name, type and dims only; the frontend keeps the bytes where they
// already are (a LibTorch tensor, a memory-mapped .pt2 archive) and hands
// them over here as spans. Their bytes then go either inline (raw_data, one
// copy) or straight from those spans into an ONNX external data file (no
// copy at all).
#pragma once
#include "mx/onnx_proto.hpp"

#include "mx/common/derived_bytes.hpp"

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

// A weight written in another layout than its source bytes (the graph
// passes' transposed weights) or scaled per output channel (a folded
// BatchNormalization): mx/common/derived_bytes.hpp, shared with the host,
// which derives them itself from an answer's "derived_references".
using Permutation = mx::common::Permutation;
using ChannelScale = mx::common::ChannelScale;

// Bytes of one initializer, owned by the frontend until the model is written.
struct WeightBytes {
  const char* data = nullptr;
  uint64_t size = 0;
  uint64_t source_offset = kNotInSource;  // file offset of `data` in the source model
  std::optional<Permutation> permuted;    // set: written permuted
  std::optional<ChannelScale> scaled;     // set: written scaled
  // Written as other bytes than its source's (permuted or scaled).
  bool derived() const { return permuted.has_value() || scaled.has_value(); }
  mx::common::Derivation derivation() const { return {permuted, scaled}; }
  // `data` lies in a read-only file mapping: once written out, its pages
  // may be dropped from memory (they are read again from the file if
  // needed), so streaming a model does not keep all of it resident.
  bool file_mapped = false;
  // A tensor constant of the program (torch.export's lifted constants:
  // `torch.tensor(0)` in forward), not a parameter or buffer a user may
  // edit or a state the program writes: passes may read it as a constant.
  bool program_constant = false;
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

// Hands the bytes `w` is written as to `put`, in order, piece by piece:
// its own bytes, or their permutation or scaling built a bounded piece at a
// time. The mapped pages of a file_mapped weight are dropped as they are
// consumed.
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

// Where an answer by reference (docs/plugin-protocol.md,
// "weights_by_reference") points the weights.
struct ReferenceTargets {
  std::string source_location;  // the source model file
  // A file of the host's output_dir ("output_dir_references") to stream
  // derived weights into; empty: none.
  std::string derived_path;
  // The host derives weights itself ("derived_references"): a derived
  // weight whose bytes sit in the source refers to them there, with its
  // derivation (mx/common/derivation_text.hpp), and is written only once,
  // by the host, into the output.
  bool derived_references = false;
};

// Points every initializer of at least kExternalMinBytes whose bytes sit in
// the source model file at them: data_location EXTERNAL, location =
// `source_location`, offset, length, and a derived weight's derivation when
// the host takes "derived_references". Derived weights the host does not
// derive go to `derived_path` when there is one (created; MX_ERR_IO on a
// write error, the partial file removed) and are referred to there. The
// others get raw_data. Returns the bytes left inline.
uint64_t refer_to_source(onnx::GraphProto& g, const WeightMap& data, const ReferenceTargets& targets);

// Whether refer_to_source() points `w` at a file rather than inlining it.
bool referred(const WeightBytes& w, const ReferenceTargets& targets);

// Writes `bytes` to `path` (MX_ERR_IO; nothing left behind on failure).
void write_file(const std::string& path, const std::string& bytes);

}  // namespace mx::aten_onnx
