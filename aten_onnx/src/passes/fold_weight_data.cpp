// Data movement on weights, evaluated at export. A recurrent layer's
// parameters are reordered into ONNX's gate order (`Split` of each weight
// and bias, `Concat` in the other order, `Unsqueeze` to add the direction
// axis, the two biases concatenated): the runtime would redo that at every
// load and the file carries nodes the anchor folds away. Here a chain of
// data-movement ops (Split, and those of constant_data.hpp) whose inputs
// are weights and constants becomes a Constant under the name of its last
// node (its record kept) when every weight it reads is read only by such
// chains, so no weight is written twice; the weights and the chain's other
// nodes go with the dead-node pass (counted as folded). Element-wise float
// arithmetic on them (Gemma's RMSNorm `1 + weight`) is folded the same
// way, computed as the runtime computes it (constant_arithmetic.hpp), and
// so is a Resize of them to a static size (resize_data.hpp: YOLOS's
// position embeddings, bicubic to the patch grid, and BEiT's relative
// position bias table, bilinear to the window, which the anchor computes
// at export). Only weights stored
// as they are (not permuted, not scaled) and results of at most
// kMaxElements elements are folded. PassReport::weight_constants names the
// weights each folded constant was computed from.
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "constant_arithmetic.hpp"
#include "constant_data.hpp"
#include "graph_edit.hpp"
#include "resize_data.hpp"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

constexpr int64_t kMaxElements = int64_t{1} << 20;

struct Known {
  passes::ConstantData data;
  std::set<std::string> weights;  // the weights it was computed from
};

// Output k of Split(x) along `axis` into `sizes`.
std::optional<passes::ConstantData> split_piece(const passes::ConstantData& x, int64_t axis,
                                                const std::vector<int64_t>& sizes, size_t k) {
  const size_t es = element_size(x.dtype);
  if (es == 0 || axis < 0 || axis >= static_cast<int64_t>(x.dims.size())) return std::nullopt;
  int64_t outer = 1, inner = 1, offset = 0;
  for (int64_t d = 0; d < axis; ++d) outer *= x.dims[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < x.dims.size(); ++d) inner *= x.dims[d];
  for (size_t j = 0; j < k; ++j) offset += sizes[j];
  const int64_t len = sizes[k], full = x.dims[static_cast<size_t>(axis)];
  passes::ConstantData r;
  r.dtype = x.dtype;
  r.dims = x.dims;
  r.dims[static_cast<size_t>(axis)] = len;
  const size_t row = static_cast<size_t>(inner) * es;
  for (int64_t o = 0; o < outer; ++o)
    r.bytes.append(x.bytes, (static_cast<size_t>(o * full + offset)) * row, static_cast<size_t>(len) * row);
  return r;
}

// The split sizes of a Split node over a dim of `full`, or nothing.
std::optional<std::vector<int64_t>> split_sizes(const onnx::NodeProto& n, int64_t full,
                                                const std::map<std::string, Known>& known) {
  std::vector<int64_t> sizes;
  if (n.input_size() >= 2 && !n.input(1).empty()) {
    auto it = known.find(n.input(1));
    if (it == known.end()) return std::nullopt;
    auto v = passes::ints_of(&it->second.data);
    if (!v) return std::nullopt;
    sizes = *v;
  } else if (const auto* a = passes::find_attr(n, "split")) {
    sizes.assign(a->ints().begin(), a->ints().end());
  } else {
    const int64_t parts = n.output_size();
    if (parts == 0 || full % parts != 0) return std::nullopt;  // uneven num_outputs: left to the runtime
    sizes.assign(static_cast<size_t>(parts), full / parts);
  }
  int64_t sum = 0;
  for (auto s : sizes) {
    if (s < 0) return std::nullopt;
    sum += s;
  }
  if (sum != full || static_cast<int>(sizes.size()) != n.output_size()) return std::nullopt;
  return sizes;
}

// Weights joined by the results computed from them: a result read from
// two weights joins them, and so does a weight two results read.
struct Groups {
  std::map<std::string, std::string> parent;
  std::string root(const std::string& w) {
    auto it = parent.find(w);
    if (it == parent.end() || it->second == w) return parent[w] = w;
    return it->second = root(it->second);
  }
  void join(const std::string& a, const std::string& b) { parent[root(a)] = root(b); }
};

// The results of a group of weights are written in their place: when two
// or more take more bytes than the weights (a weight read through two
// Transposes or two Expands, written twice), the group's weights stay. Results that
// share their weights and take no more room (DETR's frozen batch norm:
// `scale = w * (var + eps).rsqrt()` and `b - mean * scale`, two per-channel
// results of four per-channel buffers) are folded.
void keep_growing_groups(const onnx::GraphProto& g, const std::set<int>& folded,
                         const std::map<std::string, Known>& known, const std::set<std::string>& read_outside,
                         const WeightMap& weights, std::set<std::string>& kept) {
  Groups groups;
  std::vector<const Known*> results;
  for (int i : folded) {
    const auto& n = g.node(i);
    if (n.op_type() == "Split" || !read_outside.count(n.output(0))) continue;
    const Known& k = known.at(n.output(0));
    results.push_back(&k);
    for (const auto& w : k.weights) groups.join(w, *k.weights.begin());
  }
  std::map<std::string, uint64_t> source, written;
  std::map<std::string, int> count;
  for (const auto& [w, up] : groups.parent) source[groups.root(w)] += weights.at(w).size;
  for (const Known* k : results) {
    const std::string root = groups.root(*k->weights.begin());
    written[root] += k->data.bytes.size();
    ++count[root];
  }
  std::set<std::string> growing;  // (one result alone may outgrow small weights: checked per result)
  for (const auto& [root, bytes] : written)
    if (count[root] > 1 && bytes > source[root]) growing.insert(root);
  for (const auto& [w, up] : groups.parent)
    if (growing.count(groups.root(w))) kept.insert(w);
}

}  // namespace

void fold_weight_data(onnx::GraphProto& g, const WeightMap& weights, PassReport& report) {
  const auto in_subgraphs = passes::subgraph_reads(g);
  const auto outputs = passes::graph_outputs(g);
  std::set<std::string> graph_inputs;
  for (const auto& i : g.input()) graph_inputs.insert(i.name());

  std::set<std::string> copied;  // weights with a permuted copy stay, the copy names them
  for (const auto& [copy, of] : report.permuted_copies) copied.insert(of.of);
  // Weights that may be folded; their bytes are read only when a node
  // whose every input is known reads them.
  std::map<std::string, const onnx::TensorProto*> candidates;
  for (const auto& t : g.initializer()) {
    auto w = weights.find(t.name());
    if (w == weights.end() || !passes::stored_as_is(t, w->second, kMaxElements) || copied.count(t.name()) ||
        graph_inputs.count(t.name()) || in_subgraphs.count(t.name()) || outputs.count(t.name()))
      continue;
    candidates[t.name()] = &t;
  }
  if (candidates.empty()) return;
  std::map<std::string, Known> known;  // constants and values computed from weights
  auto load = [&](const std::string& name) {
    auto c = candidates.find(name);
    if (c == candidates.end() || known.count(name)) return;
    const auto view = passes::with_weight_bytes(*c->second, weights.at(name));
    if (auto d = passes::constant_data(view, kMaxElements)) known[name] = {std::move(*d), {name}};
  };

  // Evaluate every data-movement node whose inputs are all known and at
  // least one of them is computed from a weight.
  std::set<int> folded;  // node indices evaluated
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (!n.domain().empty() || passes::has_subgraph(n)) continue;
    if (n.op_type() == "Constant") {
      if (auto c = passes::constant_node_data(n, kMaxElements)) known[n.output(0)] = {std::move(*c), {}};
      continue;
    }
    bool readable = n.input_size() > 0;
    for (const auto& name : n.input())
      readable &= name.empty() || known.count(name) > 0 || candidates.count(name) > 0;
    if (!readable) continue;
    for (const auto& name : n.input()) load(name);
    std::vector<const passes::ConstantData*> in;
    std::set<std::string> from;
    bool all = n.input_size() > 0;
    for (const auto& name : n.input()) {
      if (name.empty()) {
        in.push_back(nullptr);
        continue;
      }
      auto it = known.find(name);
      if (it == known.end()) {
        all = false;
        break;
      }
      in.push_back(&it->second.data);
      from.insert(it->second.weights.begin(), it->second.weights.end());
    }
    if (!all || from.empty()) continue;
    if (n.op_type() == "Split") {
      int64_t axis = passes::int_attr(n, "axis", 0);
      const auto& x = *in[0];
      if (!passes::normalize_axis(axis, static_cast<int64_t>(x.dims.size()))) continue;
      const auto sizes = split_sizes(n, x.dims[static_cast<size_t>(axis)], known);
      if (!sizes) continue;
      std::vector<Known> pieces;
      for (size_t k = 0; k < sizes->size(); ++k) {
        auto p = split_piece(x, axis, *sizes, k);
        if (!p) break;
        pieces.push_back({std::move(*p), from});
      }
      if (pieces.size() != sizes->size()) continue;
      for (size_t k = 0; k < pieces.size(); ++k) known[n.output(static_cast<int>(k))] = std::move(pieces[k]);
      folded.insert(i);
      continue;
    }
    if (n.output_size() != 1) continue;
    auto r = passes::eval_data_movement(n, in, kMaxElements);
    if (!r) r = passes::eval_float_arithmetic(n, in, kMaxElements);  // Gemma's RMSNorm `1 + weight`
    if (!r) r = passes::eval_resize(n, in, kMaxElements);
    if (!r) continue;
    known[n.output(0)] = {std::move(*r), std::move(from)};
    folded.insert(i);
  }
  if (folded.empty()) return;

  // A weight read by a node left as it is (or a Split output read so, a
  // subgraph, a graph output) stays: folding what else reads it would
  // write its bytes twice. Such weights poison what was computed from them.
  std::set<std::string> split_outputs, read_outside;
  for (int j : folded)
    if (g.node(j).op_type() == "Split")
      for (const auto& o : g.node(j).output()) split_outputs.insert(o);
  for (int i = 0; i < g.node_size(); ++i)
    if (!folded.count(i))
      for (const auto& in : g.node(i).input()) read_outside.insert(in);
  read_outside.insert(in_subgraphs.begin(), in_subgraphs.end());
  read_outside.insert(outputs.begin(), outputs.end());
  std::set<std::string> kept;
  for (const auto& v : read_outside) {
    auto it = known.find(v);
    if (it == known.end()) continue;
    if ((weights.count(v) && it->second.weights.count(v)) || split_outputs.count(v))
      kept.insert(it->second.weights.begin(), it->second.weights.end());
  }
  keep_growing_groups(g, folded, known, read_outside, weights, kept);

  for (int i : folded) {
    auto& n = *g.mutable_node(i);
    if (n.op_type() == "Split" || outputs.count(n.output(0))) continue;  // a Split dies with its readers
    const auto& k = known[n.output(0)];
    bool ok = true;
    uint64_t source_bytes = 0;
    for (const auto& w : k.weights) {
      ok &= !kept.count(w);
      source_bytes += weights.at(w).size;
    }
    // Data movement that would make the file larger (an Expand of a
    // weight) is left to the runtime.
    if (!ok || k.data.bytes.size() > std::max<uint64_t>(source_bytes, 4096)) continue;
    const onnx::TensorProto value = passes::to_tensor(k.data);
    n.clear_input();
    n.clear_attribute();
    n.set_op_type("Constant");
    *n.add_attribute() = attr("value", value);
    if (read_outside.count(n.output(0)))
      report.weight_constants[n.output(0)] = {k.weights.begin(), k.weights.end()};
  }
}

}  // namespace mx::aten_onnx
