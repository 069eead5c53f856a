// The shared steps of folding a per-channel affine map into a Conv
// (conv_channel_fold.hpp).
#include "conv_channel_fold.hpp"

#include <cstring>

#include "graph_edit.hpp"

namespace mx::aten_onnx::passes {

FoldIndex index_for_folds(onnx::GraphProto& g) {
  FoldIndex ix;
  ix.reads = read_counts(g);
  ix.outputs = graph_outputs(g);
  std::set<std::string> inputs;
  for (const auto& i : g.input()) inputs.insert(i.name());
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& o : g.node(i).output()) ix.producer[o] = i;
  for (auto& t : *g.mutable_initializer())
    if (!inputs.count(t.name())) ix.initializers[t.name()] = &t;
  return ix;
}

std::optional<ConvWeight> foldable_conv_weight(const onnx::NodeProto& conv, WeightMap& weights,
                                               const FoldIndex& ix, int64_t min_rank) {
  if (!is_op(&conv, "Conv") || conv.input_size() < 2) return std::nullopt;
  const std::string& name = conv.input(1);
  auto w = weights.find(name);
  auto t = ix.initializers.find(name);
  if (w == weights.end() || t == ix.initializers.end() || w->second.derived() || !w->second.data ||
      ix.reads_of(name) != 1 || t->second->data_type() != onnx::TensorProto::FLOAT ||
      t->second->dims_size() < min_rank)
    return std::nullopt;
  return ConvWeight{name, &w->second, t->second->dims(0), t->second->dims_size()};
}

std::optional<std::vector<float>> channel_floats(const onnx::TensorProto& t, const WeightBytes* source, int64_t c) {
  if (t.data_type() != onnx::TensorProto::FLOAT || t.dims_size() != 1 || t.dims(0) != c) return std::nullopt;
  std::vector<float> v(static_cast<size_t>(c));
  const uint64_t bytes = v.size() * sizeof(float);
  if (source) {
    if (source->derived() || !source->data || source->size != bytes) return std::nullopt;
    std::memcpy(v.data(), source->data, bytes);
  } else if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes) return std::nullopt;
    std::memcpy(v.data(), t.raw_data().data(), bytes);
  } else if (t.float_data_size() == c) {
    for (int64_t i = 0; i < c; ++i) v[static_cast<size_t>(i)] = t.float_data(static_cast<int>(i));
  } else {
    return std::nullopt;
  }
  return v;
}

}  // namespace mx::aten_onnx::passes
