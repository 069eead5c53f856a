// A per-channel affine map computed right after a Conv, `conv(x) * s + t`
// with constant s and t of one value per output channel, is the Conv
// itself with its weight scaled per output channel and its bias `b * s + t`.
//
// A batch norm written as arithmetic on its buffers (DETR's
// DetrFrozenBatchNorm2d: `x * scale + bias`, scale and bias computed from
// the buffers, which fold_weight_data folds into two constants) is a Mul
// and an Add per Conv that fold_batch_norms does not see. The weight keeps
// its name and is written scaled (WeightBytes::scaled, as a folded
// BatchNormalization's); the new bias replaces the Conv's bias bytes, or,
// without one, the shift constant, reshaped to [C]. The Mul and the Add go
// (counted as folded in their modules); PassReport::folded_channel_affines
// names the weights the scale and shift were computed from. Like
// fold_batch_norms this changes the rounding of the result (s is applied
// to the weights, not the sum), and it runs under the same option.
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "constant_data.hpp"
#include "conv_channel_fold.hpp"
#include "graph_edit.hpp"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

using passes::ConstantData;
using passes::is_op;

constexpr int64_t kMaxChannels = int64_t{1} << 16;

// The shared index, plus each value's first top-level reader and the
// small constants (Constant nodes' and inline initializers' values).
struct Index {
  passes::FoldIndex base;
  std::map<std::string, int> reader;  // value -> the first top-level node reading it
  std::map<std::string, ConstantData> constants;
  int reads_of(const std::string& v) const { return base.reads_of(v); }
};

Index index_graph(onnx::GraphProto& g) {
  Index ix{passes::index_for_folds(g), {}, passes::small_constants(g, kMaxChannels)};
  for (const auto& i : g.input()) ix.constants.erase(i.name());
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& in : g.node(i).input()) ix.reader.emplace(in, i);
  return ix;
}

// The float32 values of a constant (a Constant node's or an inline
// initializer's) that broadcasts against a rank-`rank` Conv output as one
// value per channel (dim 1) or one for all: `c` values.
std::optional<std::vector<float>> per_channel(const Index& ix, const std::string& v, int64_t rank, int64_t c) {
  auto it = ix.constants.find(v);
  if (it == ix.constants.end() || it->second.dtype != onnx::TensorProto::FLOAT) return std::nullopt;
  const auto& d = it->second.dims;
  if (static_cast<int64_t>(d.size()) > rank) return std::nullopt;
  const size_t lead = static_cast<size_t>(rank) - d.size();
  for (size_t k = 0; k < d.size(); ++k)
    if (d[k] != 1 && !(lead + k == 1 && d[k] == c)) return std::nullopt;
  std::vector<float> values(static_cast<size_t>(it->second.numel()));
  std::memcpy(values.data(), it->second.bytes.data(), values.size() * sizeof(float));
  if (values.size() == 1) values.assign(static_cast<size_t>(c), values[0]);
  return values;
}

// The Conv's bias, a [c] float32 initializer read by the Conv alone
// (stored in `weights` or inline), or nothing.
std::optional<std::vector<float>> conv_bias(const Index& ix, const WeightMap& weights, const std::string& name,
                                            int64_t c) {
  auto t = ix.base.initializers.find(name);
  if (ix.reads_of(name) != 1 || t == ix.base.initializers.end()) return std::nullopt;
  auto w = weights.find(name);
  return passes::channel_floats(*t->second, w == weights.end() ? nullptr : &w->second, c);
}

// The other operand of binary `n` when `v` is one of them.
std::optional<std::string> other_operand(const onnx::NodeProto& n, const std::string& v) {
  if (n.input_size() != 2) return std::nullopt;
  if (n.input(0) == v) return n.input(1);
  if (n.input(1) == v) return n.input(0);
  return std::nullopt;
}

// The only reader of `v` when it is a top-level node of `op` (and `v` no
// graph output), or nullptr.
onnx::NodeProto* read_only_by(onnx::GraphProto& g, const Index& ix, const std::string& v, const char* op) {
  auto r = ix.reader.find(v);
  if (ix.reads_of(v) != 1 || r == ix.reader.end()) return nullptr;
  auto* n = g.mutable_node(r->second);
  return is_op(n, op) && n->output_size() == 1 && !ix.base.outputs.count(n->output(0)) ? n : nullptr;
}

std::string float_bytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

// Rewrites the Constant node or initializer `name` to the [c] tensor `v`.
bool rewrite_as_bias(onnx::GraphProto& g, const Index& ix, const std::string& name, const std::vector<float>& v) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(static_cast<int64_t>(v.size()));
  t.set_raw_data(float_bytes(v));
  if (auto it = ix.base.initializers.find(name); it != ix.base.initializers.end()) {
    t.set_name(name);
    *it->second = t;
    return true;
  }
  auto p = ix.base.producer.find(name);
  if (p == ix.base.producer.end()) return false;
  auto& n = *g.mutable_node(p->second);
  n.clear_attribute();
  *n.add_attribute() = attr("value", t);
  return true;
}

}  // namespace

void fold_channel_affines(onnx::GraphProto& g, WeightMap& weights, PassReport& report) {
  const Index ix = index_graph(g);
  std::map<std::string, std::string> renames;
  std::set<std::string> removed;
  for (auto& conv : *g.mutable_node()) {
    if (conv.output_size() != 1) continue;
    const auto weight = passes::foldable_conv_weight(conv, weights, ix.base, 3);
    if (!weight) continue;
    const std::string wname = weight->name;
    const int64_t rank = weight->rank, c = weight->channels;
    onnx::NodeProto* mul = read_only_by(g, ix, conv.output(0), "Mul");
    if (!mul) continue;
    const std::string s_name = other_operand(*mul, conv.output(0)).value_or("");
    const auto scale = per_channel(ix, s_name, rank, c);
    if (!scale) continue;
    // An Add of a per-channel constant read there alone is the shift.
    onnx::NodeProto* add = read_only_by(g, ix, mul->output(0), "Add");
    std::string t_name;
    std::optional<std::vector<float>> shift;
    if (add) {
      t_name = other_operand(*add, mul->output(0)).value_or("");
      if (ix.reads_of(t_name) == 1 && t_name != mul->output(0)) shift = per_channel(ix, t_name, rank, c);
      if (!shift) add = nullptr;
    }
    const bool has_bias = conv.input_size() > 2 && !conv.input(2).empty();
    const auto bias = has_bias ? conv_bias(ix, weights, conv.input(2), c) : std::nullopt;
    if (has_bias && !bias) continue;
    // b * s + t, each step in float32 as the runtime rounds it.
    std::vector<float> folded(static_cast<size_t>(c), 0.0f);
    for (size_t k = 0; k < folded.size(); ++k) {
      volatile float scaled = (bias ? (*bias)[k] : 0.0f) * (*scale)[k];
      folded[k] = shift ? scaled + (*shift)[k] : static_cast<float>(scaled);
    }
    const std::string bias_name = has_bias ? conv.input(2) : add ? t_name : "";
    if (!bias_name.empty()) {
      if (!rewrite_as_bias(g, ix, bias_name, folded)) continue;
      weights.erase(bias_name);  // its bytes are the folded bias now, inline
      while (conv.input_size() < 3) conv.add_input("");
      conv.set_input(2, bias_name);
    }
    weight->bytes->scaled = ChannelScale{*scale};
    // The parameters a folded constant was computed from (fold_weight_data
    // named them); a constant no longer in the file leaves weight_constants.
    auto parameters_of = [&](const std::string& v, bool gone) {
      auto it = report.weight_constants.find(v);
      if (it == report.weight_constants.end()) return std::vector<std::string>{};
      std::vector<std::string> p = it->second;
      if (gone) report.weight_constants.erase(it);
      return p;
    };
    PassReport::FoldedChannelAffine record;
    record.node = add ? add->name() : mul->name();
    record.scale_from = parameters_of(s_name, ix.reads_of(s_name) == 1);
    if (add) record.shift_from = parameters_of(t_name, t_name != bias_name);
    record.bias = bias_name;
    report.folded_channel_affines[wname] = std::move(record);
    renames[(add ? add : mul)->output(0)] = conv.output(0);
    removed.insert(mul->name());
    if (add) removed.insert(add->name());
  }
  passes::rename_reads(g, renames);
  passes::remove_nodes(g, removed);
  report.removed.insert(removed.begin(), removed.end());
}

}  // namespace mx::aten_onnx
