// Lowerings build shapes from scalars: `sym_size` is Gather(Shape(x), i),
// then Unsqueeze'd to 1-D for a Concat; a view unsqueezes twice in a row.
// Here Unsqueeze(Gather(Shape(x), i), [0]) becomes Shape(x, start=i,
// end=i+1) (opset 15) and Unsqueeze(Unsqueeze(x, A), B) one Unsqueeze, the
// inner node turned into the constant of the merged axes. Rewritten nodes
// keep their names (and so their module records).
#include <algorithm>
#include <map>

#include "graph_edit.hpp"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

using passes::int_attr;
using passes::is_op;

struct Index {
  std::map<std::string, int> producer;  // value -> node index
  std::map<std::string, int> readers;   // passes::read_counts
};

Index index_of(const onnx::GraphProto& g) {
  Index ix;
  ix.readers = passes::read_counts(g);
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& o : g.node(i).output()) ix.producer[o] = i;
  return ix;
}

const onnx::NodeProto* producer(const onnx::GraphProto& g, const Index& ix, const std::string& v) {
  auto it = ix.producer.find(v);
  return it == ix.producer.end() ? nullptr : &g.node(it->second);
}

std::optional<passes::Int64Constant> constant_input(const onnx::GraphProto& g, const Index& ix,
                                                    const std::string& v) {
  const auto* p = producer(g, ix, v);
  return p ? passes::int64_constant(*p) : std::nullopt;
}

// Unsqueeze(Gather(Shape(x), i), [0]) -> Shape(x, start=i, end=i+1).
bool slice_of_shape(const onnx::GraphProto& g, Index& ix, onnx::NodeProto& u) {
  if (u.input_size() != 2) return false;
  const auto axes = constant_input(g, ix, u.input(1));
  if (!axes || axes->values != std::vector<int64_t>{0}) return false;
  const auto* gather = producer(g, ix, u.input(0));
  if (!is_op(gather, "Gather") || gather->input_size() != 2 || int_attr(*gather, "axis", 0) != 0)
    return false;
  const auto index = constant_input(g, ix, gather->input(1));
  if (!index || index->rank != 0) return false;
  const auto* shape = producer(g, ix, gather->input(0));
  if (!is_op(shape, "Shape") || shape->attribute_size() != 0) return false;
  const int64_t i = index->values[0];
  if (i < -1) return false;  // end would need the rank
  const std::string x = shape->input(0);
  u.clear_input();
  u.add_input(x);
  ++ix.readers[x];  // stale counts of the inputs it dropped only err high
  u.set_op_type("Shape");
  *u.add_attribute() = attr("start", i);
  if (i != -1) *u.add_attribute() = attr("end", i + 1);
  return true;
}

// Unsqueeze(Unsqueeze(x, A), B), the inner read once: axes of the result
// that are new = B plus A's positions among the dims B did not insert.
bool merge_unsqueezes(onnx::GraphProto& g, const Index& ix, onnx::NodeProto& outer) {
  if (outer.input_size() != 2) return false;
  auto inner_it = ix.producer.find(outer.input(0));
  if (inner_it == ix.producer.end()) return false;
  onnx::NodeProto& inner = *g.mutable_node(inner_it->second);
  if (!is_op(&inner, "Unsqueeze") || inner.input_size() != 2) return false;
  auto reads = ix.readers.find(inner.output(0));
  if (reads == ix.readers.end() || reads->second != 1) return false;
  const auto a = constant_input(g, ix, inner.input(1)), b = constant_input(g, ix, outer.input(1));
  if (!a || !b) return false;
  auto nonneg = [](const std::vector<int64_t>& v) {
    return std::all_of(v.begin(), v.end(), [](int64_t x) { return x >= 0; });
  };
  if (!nonneg(a->values) || !nonneg(b->values)) return false;
  std::vector<int64_t> merged = b->values;
  for (int64_t p : a->values) {  // p-th dim of the intermediate, skipping B's positions
    int64_t pos = -1, seen = -1;
    while (seen < p) {
      ++pos;
      if (std::find(b->values.begin(), b->values.end(), pos) == b->values.end()) ++seen;
    }
    merged.push_back(pos);
  }
  std::sort(merged.begin(), merged.end());
  if (std::adjacent_find(merged.begin(), merged.end()) != merged.end()) return false;
  const std::string x = inner.input(0);
  passes::make_int64_constant(inner, merged);
  outer.set_input(0, x);
  outer.set_input(1, inner.output(0));
  return true;
}

}  // namespace

void collapse_unsqueezes(onnx::GraphProto& g, int opset, PassReport&) {
  // Rewrites keep every producer; read counts only matter as "read once",
  // which a rewrite never makes true wrongly (it moves or drops reads).
  Index ix = index_of(g);
  for (int i = 0; i < g.node_size(); ++i) {
    auto& n = *g.mutable_node(i);
    if (!is_op(&n, "Unsqueeze")) continue;
    if (opset >= 15 && slice_of_shape(g, ix, n)) continue;
    merge_unsqueezes(g, ix, n);  // the inner one read once: not in a subgraph, not a graph output
  }
}

}  // namespace mx::aten_onnx
