// Slices of one value along one axis that together cover that axis, each
// part once (rotary embedding's rotate_half: x[..., :d/2] and x[..., d/2:];
// a fused projection cut into q, k and v), are one Split. ONNX Runtime
// rewrites such Slices into a Split itself when it loads the file
// (GatherSliceToSplitFusion), and each rewrite it makes re-resolves the
// graph; written as a Split, the file has fewer nodes and ORT has less to
// do. The axis must be static in the program's dims (the split sizes are
// constants). The first Slice becomes the Split (its name and record kept),
// the others are removed; the sizes are an initializer named after it, one
// per distinct sizes (ORT would share equal ones at load: another rewrite).
#include <algorithm>
#include <map>

#include "graph_edit.hpp"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

// One Slice of a single axis with step 1, its range normalised to [start, end).
struct Part {
  int index;  // in the graph's node list
  int64_t start, end;
};

std::optional<int64_t> single(const std::map<std::string, const onnx::NodeProto*>& producer,
                              const std::string& value) {
  auto p = producer.find(value);
  if (p == producer.end()) return std::nullopt;
  const auto c = passes::int64_constant(*p->second);
  if (!c || c->values.size() != 1) return std::nullopt;
  return c->values[0];
}

// The static size of `value`'s dim `axis` (negative: from the end), and the
// axis made non-negative.
std::optional<int64_t> static_dim(const SymbolicShapes& shapes, const std::string& value, int64_t& axis) {
  auto it = shapes.find(value);
  if (it == shapes.end()) return std::nullopt;
  const auto rank = static_cast<int64_t>(it->second.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  return it->second[static_cast<size_t>(axis)].size;
}

// (input, axis) of a Slice this pass can merge, with its part.
std::optional<std::pair<std::pair<std::string, int64_t>, Part>> slice_part(
    const onnx::GraphProto& g, int i, const std::map<std::string, const onnx::NodeProto*>& producer,
    const SymbolicShapes& shapes) {
  const auto& n = g.node(i);
  if (n.op_type() != "Slice" || !n.domain().empty() || n.input_size() < 3 || n.output_size() != 1)
    return std::nullopt;
  const auto start = single(producer, n.input(1)), end = single(producer, n.input(2));
  int64_t axis = 0;
  if (n.input_size() > 3 && !n.input(3).empty()) {
    const auto a = single(producer, n.input(3));
    if (!a) return std::nullopt;
    axis = *a;
  }
  if (n.input_size() > 4 && !n.input(4).empty() && single(producer, n.input(4)) != int64_t{1})
    return std::nullopt;
  if (!start || !end) return std::nullopt;
  const auto dim = static_dim(shapes, n.input(0), axis);
  if (!dim) return std::nullopt;
  auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + *dim : v, 0, *dim); };
  return std::make_pair(std::make_pair(n.input(0), axis), Part{i, clamp(*start), clamp(*end)});
}

// The parts sorted by start when they tile [0, dim) with non-empty pieces.
bool tiles(std::vector<Part>& parts, int64_t dim) {
  std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.start < b.start; });
  int64_t at = 0;
  for (const auto& p : parts) {
    if (p.start != at || p.end <= p.start) return false;
    at = p.end;
  }
  return at == dim;
}

}  // namespace

void merge_slices_to_split(onnx::GraphProto& g, PassReport& report, const SymbolicShapes& shapes) {
  std::map<std::string, const onnx::NodeProto*> producer;
  for (const auto& n : g.node())
    for (const auto& o : n.output()) producer[o] = &n;
  std::map<std::pair<std::string, int64_t>, std::vector<Part>> groups;
  for (int i = 0; i < g.node_size(); ++i)
    if (auto s = slice_part(g, i, producer, shapes)) groups[s->first].push_back(s->second);
  std::set<std::string> names, removed;
  std::map<std::vector<int64_t>, std::string> made;  // one initializer per sizes
  for (const auto& t : g.initializer()) names.insert(t.name());
  for (const auto& v : g.input()) names.insert(v.name());
  for (auto& [key, parts] : groups) {
    int64_t axis = key.second;
    const auto dim = static_dim(shapes, key.first, axis);
    if (parts.size() < 2 || !dim || !tiles(parts, *dim)) continue;
    const auto first = std::min_element(parts.begin(), parts.end(),
                                        [](const Part& a, const Part& b) { return a.index < b.index; });
    onnx::NodeProto& split = *g.mutable_node(first->index);
    std::vector<int64_t> sizes;
    std::vector<std::string> outputs;
    for (const auto& p : parts) {
      sizes.push_back(p.end - p.start);
      outputs.push_back(g.node(p.index).output(0));
      if (p.index != first->index) removed.insert(g.node(p.index).name());
    }
    std::string& name = made[sizes];
    if (name.empty()) {
      name = (split.name().empty() ? split.output(0) : split.name()) + "_split";
      while (names.count(name) || producer.count(name)) name += "_";
      names.insert(name);
      auto* t = g.add_initializer();
      *t = int64_tensor(sizes);
      t->set_name(name);
    }
    split.set_op_type("Split");
    split.clear_attribute();
    *split.add_attribute() = attr("axis", axis);
    split.clear_input();
    split.add_input(key.first);
    split.add_input(name);
    split.clear_output();
    for (const auto& o : outputs) split.add_output(o);
  }
  passes::remove_nodes(g, removed);
  report.removed.insert(removed.begin(), removed.end());
}

}  // namespace mx::aten_onnx
