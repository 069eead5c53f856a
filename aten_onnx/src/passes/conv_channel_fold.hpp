// What folding a per-output-channel affine map into the Conv before it
// needs, shared by fold_batch_norms (a BatchNormalization) and
// fold_channel_affines (a Mul and an Add of constants): an index of the
// graph, the Conv weight a scale can be folded into, and the float32
// values of a [C] tensor (the Conv's bias, a norm's parameters).
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mx/aten_onnx/weights.hpp"
#include "mx/onnx_proto.hpp"

namespace mx::aten_onnx::passes {

struct FoldIndex {
  std::map<std::string, int> producer;  // value -> node index
  std::map<std::string, int> reads;     // read_counts: subgraph reads and graph outputs count
  std::map<std::string, onnx::TensorProto*> initializers;  // those that are not graph inputs
  std::set<std::string> outputs;
  int reads_of(const std::string& v) const {
    auto it = reads.find(v);
    return it == reads.end() ? 0 : it->second;
  }
};
FoldIndex index_for_folds(onnx::GraphProto& g);

// The weight of `conv` (a default-domain Conv) when a per-channel scale can
// be folded into it: a float32 initializer of rank >= `min_rank` whose bytes
// are its source's (not already permuted or scaled), read by `conv` alone.
struct ConvWeight {
  std::string name;
  WeightBytes* bytes = nullptr;  // the fold sets bytes->scaled
  int64_t channels = 0, rank = 0;
};
std::optional<ConvWeight> foldable_conv_weight(const onnx::NodeProto& conv, WeightMap& weights,
                                               const FoldIndex& ix, int64_t min_rank);

// The float32 values of `t` when it is a [c] float32 tensor: `source`'s
// bytes when given (none when they are derived), else its inline raw_data
// or float_data.
std::optional<std::vector<float>> channel_floats(const onnx::TensorProto& t, const WeightBytes* source, int64_t c);

}  // namespace mx::aten_onnx::passes
