// An eval-mode BatchNormalization right after a Conv is an affine map per
// output channel: y = (conv(x) + b - mean) * s + beta, s = gamma /
// sqrt(var + eps). Folding it into the Conv (weight * s per output channel,
// bias (b - mean) * s + beta) removes the node, as torch.onnx's files and
// ONNX Runtime's own fusion at load do. The Conv's weight keeps its name and
// is written scaled a chunk at a time (WeightBytes::scaled), never held
// whole; the new bias is a few floats, computed here.
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include "conv_channel_fold.hpp"
#include "graph_edit.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

using passes::FoldIndex;

struct Graph {
  FoldIndex base;
  std::map<std::string, const onnx::TensorProto*> constants;  // Constant nodes' values
  std::set<std::string> in_subgraphs;
};

Graph index_graph(onnx::GraphProto& g) {
  Graph x{passes::index_for_folds(g), {}, passes::subgraph_reads(g)};
  for (const auto& n : g.node())
    if (n.op_type() == "Constant" && n.domain().empty() && n.attribute_size() == 1 &&
        n.attribute(0).name() == "value" && n.attribute(0).has_t())
      x.constants[n.output(0)] = &n.attribute(0).t();
  return x;
}

// A value read once, by the node in question, and nowhere else.
bool read_once(const Graph& x, const std::string& v) {
  return x.base.reads_of(v) == 1 && !x.base.outputs.count(v) && !x.in_subgraphs.count(v);
}

// The float32 values of a [c] parameter: an initializer's (its source
// bytes when it is a weight) or a Constant node's.
std::optional<std::vector<double>> channel_values(const Graph& x, const WeightMap& weights,
                                                  const std::string& v, int64_t c) {
  std::optional<std::vector<float>> f;
  if (auto init = x.base.initializers.find(v); init != x.base.initializers.end()) {
    auto w = weights.find(v);
    f = passes::channel_floats(*init->second, w == weights.end() ? nullptr : &w->second, c);
  } else if (auto k = x.constants.find(v); k != x.constants.end()) {
    f = passes::channel_floats(*k->second, nullptr, c);
  }
  if (!f) return std::nullopt;
  return std::vector<double>(f->begin(), f->end());
}

float epsilon_of(const onnx::NodeProto& bn) {
  for (const auto& a : bn.attribute())
    if (a.name() == "epsilon") return a.f();
  return 1e-5f;
}

bool training_mode(const onnx::NodeProto& bn) {
  for (const auto& a : bn.attribute())
    if (a.name() == "training_mode") return a.i() != 0;
  return false;
}

}  // namespace

void fold_batch_norms(onnx::GraphProto& g, WeightMap& weights, PassReport& report) {
  Graph x = index_graph(g);
  std::map<std::string, std::string> renames;
  std::set<std::string> removed;
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& bn = g.node(i);
    if (bn.op_type() != "BatchNormalization" || !bn.domain().empty() || bn.input_size() != 5 ||
        training_mode(bn))
      continue;
    bool extra_outputs = false;
    for (int k = 1; k < bn.output_size(); ++k) extra_outputs |= !bn.output(k).empty();
    if (extra_outputs || x.base.outputs.count(bn.output(0))) continue;
    auto p = x.base.producer.find(bn.input(0));
    if (p == x.base.producer.end() || !read_once(x, bn.input(0))) continue;
    auto& conv = *g.mutable_node(p->second);
    const auto weight = passes::foldable_conv_weight(conv, weights, x.base, 1);
    if (!weight) continue;
    const std::string& wname = weight->name;
    const int64_t c = weight->channels;
    const bool has_bias = conv.input_size() > 2 && !conv.input(2).empty();
    const auto gamma = channel_values(x, weights, bn.input(1), c),
               beta = channel_values(x, weights, bn.input(2), c);
    const auto mean = channel_values(x, weights, bn.input(3), c),
               var = channel_values(x, weights, bn.input(4), c);
    const auto bias = has_bias ? channel_values(x, weights, conv.input(2), c) : std::vector<double>(c, 0.0);
    if (!gamma || !beta || !mean || !var || !bias) continue;
    if (has_bias && !read_once(x, conv.input(2))) continue;
    // The folded bias takes the Conv's bias name, or the BN's shift's when
    // the Conv had none (read by this BN only: its bytes are replaced).
    const std::string bias_name = has_bias ? conv.input(2) : bn.input(2);
    if (!x.base.initializers.count(bias_name) || (!has_bias && !read_once(x, bias_name))) continue;

    const double eps = epsilon_of(bn);
    std::vector<float> scale(static_cast<size_t>(c));
    std::string folded_bias(static_cast<size_t>(c) * sizeof(float), '\0');
    for (size_t k = 0; k < scale.size(); ++k) {
      const double s = (*gamma)[k] / std::sqrt((*var)[k] + eps);
      scale[k] = static_cast<float>(s);
      const auto b = static_cast<float>(((*bias)[k] - (*mean)[k]) * s + (*beta)[k]);
      std::memcpy(&folded_bias[k * sizeof(float)], &b, sizeof(float));
    }
    weight->bytes->scaled = ChannelScale{std::move(scale)};
    auto& bt = *x.base.initializers.at(bias_name);
    weights.erase(bias_name);  // its bytes are the folded bias now, inline
    bt.set_raw_data(folded_bias);
    if (!has_bias) {
      while (conv.input_size() < 3) conv.add_input("");
      conv.set_input(2, bias_name);
    }
    report.folded_batch_norms[wname] = {
        bn.name(), {bn.input(1), bn.input(2), bn.input(3), bn.input(4)}, bias_name, eps};
    renames[bn.output(0)] = conv.output(0);
    removed.insert(bn.name());
  }
  passes::rename_reads(g, renames);
  passes::remove_nodes(g, removed);
  report.removed.insert(removed.begin(), removed.end());
}

}  // namespace mx::aten_onnx
