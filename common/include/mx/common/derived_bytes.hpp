// Bytes written in another form than the ones stored: a weight the graph
// passes store transposed (its consumer's layout) or scaled per output
// channel (a BatchNormalization folded into its Conv). The frontend that
// writes a weight itself and the host that writes a weight a frontend
// answered by reference (docs/plugin-protocol.md, "derived_references")
// both produce them here, so the two cannot differ by a bit. std only.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace mx::common {

// The output is the source tensor (dims `source_dims`) permuted by `perm`,
// as ONNX Transpose permutes: output dim i is source dim perm[i].
struct Permutation {
  std::vector<int64_t> perm, source_dims;
  size_t element_size = 0;
};

// A float32 tensor whose slice i of dim 0 is multiplied by scale[i].
struct ChannelScale {
  std::vector<float> scale;
};

// At most one of the two: no pass both permutes and scales a weight.
struct Derivation {
  std::optional<Permutation> permuted;
  std::optional<ChannelScale> scaled;
  bool empty() const { return !permuted && !scaled; }
};

// A piece of output: (offset in the tensor, bytes, count).
using BytePiece = std::function<void(uint64_t, const char*, uint64_t)>;
// Source bytes [offset, offset + count) have been read for the last time
// (a mapped source can drop its pages).
using SourceDone = std::function<void(uint64_t, uint64_t)>;

// Why `d` cannot derive `size` source bytes (dims that do not match the
// bytes, a perm that is not a permutation, a scale count that does not
// divide the elements); nullopt when it can.
std::optional<const char*> derivation_problem(const Derivation& d, uint64_t size);

// Hands the derived form of src[0, size) to `put` in order, a bounded
// chunk at a time (a few MiB), so neither copy is ever held whole; calls
// `done` as source ranges are consumed. Throws std::invalid_argument when
// derivation_problem() names one.
void for_each_derived_piece(const char* src, uint64_t size, const Derivation& d, const BytePiece& put,
                            const SourceDone& done = nullptr);

}  // namespace mx::common
