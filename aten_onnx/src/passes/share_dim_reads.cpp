// One read per dim: a dynamic dim that the graph reads both as a scalar
// (`sym_size`: Gather(Shape(x), i), for arithmetic on sizes) and as a 1-D
// slice (Shape(x, start=i, end=i+1), what collapse_unsqueezes makes of an
// Unsqueeze'd sym_size feeding a Concat) is read twice: the whole Shape(x)
// plus a Gather per dim, next to the sliced reads. When every reader of a
// whole Shape(x) is such a Gather of a dim that is also read sliced, each
// Gather becomes Squeeze(slice) (its name, output and record kept) and the
// whole Shape dies: one node less per such Shape, as the anchor writes it
// (a sliced Shape, then a Squeeze for the scalar).
#include <map>
#include <set>

#include "graph_edit.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

using passes::int_attr;
using passes::is_op;

// Node index of Shape(x, start=i, end=i+1) for each i, of the sliced reads
// of x somebody reads.
std::map<int64_t, int> sliced_reads(const onnx::GraphProto& g, const std::string& x,
                                    const std::map<std::string, int>& reads) {
  std::map<int64_t, int> at;
  for (int k = 0; k < g.node_size(); ++k) {
    const auto& n = g.node(k);
    if (!is_op(&n, "Shape") || n.input(0) != x || n.attribute_size() != 2) continue;
    const int64_t i = int_attr(n, "start", -1);
    auto r = reads.find(n.output(0));
    if (i >= 0 && int_attr(n, "end", -1) == i + 1 && r != reads.end() && r->second > 0) at.emplace(i, k);
  }
  return at;
}

// The dim each reader of `whole` (a Shape's output) gathers, when every one
// is a Gather of a 0-d constant index on axis 0 and read only by nodes
// (Gathers nothing reads left out: dead-node elimination removes them).
std::optional<std::map<std::string, int64_t>> gathered_dims(const onnx::GraphProto& g, const std::string& whole,
                                                            const std::map<std::string, int>& reads,
                                                            const std::map<std::string, int>& producer) {
  std::map<std::string, int64_t> dims;  // Gather output -> dim
  int readers = 0;
  for (const auto& n : g.node())
    for (const auto& in : n.input()) {
      if (in != whole) continue;
      ++readers;
      if (!is_op(&n, "Gather") || n.input(0) != whole || int_attr(n, "axis", 0) != 0) return std::nullopt;
      auto used = reads.find(n.output(0));
      if (used == reads.end() || used->second == 0) continue;  // dead (a collapsed Unsqueeze's): goes anyway
      auto p = producer.find(n.input(1));
      const auto index = p == producer.end() ? std::nullopt : passes::int64_constant(g.node(p->second));
      if (!index || index->rank != 0 || index->values[0] < 0) return std::nullopt;
      dims[n.output(0)] = index->values[0];
    }
  auto r = reads.find(whole);  // reads in subgraphs or as a graph output count too
  if (readers == 0 || r == reads.end() || r->second != readers) return std::nullopt;
  return dims;
}

// Moves node `from` to just after `to` (from > to + 1); the nodes between
// shift down by one, their order kept.
void move_after(onnx::GraphProto& g, int from, int to) {
  for (int j = from; j > to + 1; --j) g.mutable_node()->SwapElements(j, j - 1);
}

// Rewrites the readers of the whole Shape at `at`; false when they are not
// all Gathers of dims read sliced too.
bool share(onnx::GraphProto& g, int at) {
  const auto reads = passes::read_counts(g);
  std::map<std::string, int> producer;
  for (int k = 0; k < g.node_size(); ++k)
    for (const auto& o : g.node(k).output()) producer[o] = k;
  const std::string x = g.node(at).input(0), whole = g.node(at).output(0);
  const auto dims = gathered_dims(g, whole, reads, producer);
  if (!dims) return false;
  const auto sliced = sliced_reads(g, x, reads);
  for (const auto& [out, i] : *dims)
    if (!sliced.count(i)) return false;
  // The sliced reads move up next to the whole one (they read only x, which
  // it reads too) so that every Gather, after it, can read them.
  std::map<int64_t, std::string> slice_of;
  for (const auto& [out, i] : *dims) slice_of[i] = g.node(sliced.at(i)).output(0);
  for (const auto& [i, value] : slice_of) {
    int k = 0;
    while (g.node(k).output_size() == 0 || g.node(k).output(0) != value) ++k;
    if (k > at + 1) move_after(g, k, at);
  }
  for (auto& n : *g.mutable_node()) {
    auto d = dims->find(n.output_size() ? n.output(0) : "");
    if (!is_op(&n, "Gather") || d == dims->end()) continue;
    n.set_op_type("Squeeze");
    n.clear_attribute();
    n.clear_input();
    n.add_input(slice_of.at(d->second));  // [1] -> the scalar (no axes: its one dim is 1)
  }
  return true;
}

}  // namespace

void share_dim_reads(onnx::GraphProto& g) {
  for (int k = 0; k < g.node_size(); ++k) {
    const auto& n = g.node(k);
    if (is_op(&n, "Shape") && n.attribute_size() == 0 && n.input_size() == 1) share(g, k);
  }
}

}  // namespace mx::aten_onnx
