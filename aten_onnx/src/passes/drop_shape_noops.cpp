// Shape glue that the program's own shapes prove does nothing.
//
// torch's decompositions (run_decompositions(): `linear`, `matmul` and
// `bmm` as `expand` + `view` + `bmm` + `view`) emit an `expand` and a
// `view` to the shape their input already has; lowered, they are an Expand
// and a Reshape that copy their input at run time. Whether they change
// anything is known only from the dims the program states (the frontend's
// SymbolicShapes): the input's and the output's dims are the same sizes or
// the same symbols. Such a node goes, its readers reading its input.
//
// An element-wise op that broadcasts (Add, Where, ...; not Mul, Div) reading
// `Expand(c, Shape(y))` where `y` is another of its operands (`zeros_like`
// or `full_like` of one operand feeding a Where) reads `c` instead: the
// op's output shape already includes `y`'s, and broadcasting reads the same
// elements of `c` the Expand would have copied. The Expand and its Shape
// die when nothing else reads them.
#include <cstring>
#include <map>
#include <set>

#include "graph_edit.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

using passes::is_op;

// Equal dims: the same static size, or the same (non-empty) symbol.
bool same_dims(const std::vector<SymbolicDim>& a, const std::vector<SymbolicDim>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].size || b[k].size) {
      if (a[k].size != b[k].size) return false;
    } else if (a[k].symbol.empty() || a[k].symbol != b[k].symbol) {
      return false;
    }
  }
  return true;
}

// An Expand or Reshape whose output has its input's dims, by the program.
bool keeps_shape(const onnx::NodeProto& n, const SymbolicShapes& shapes) {
  if (!(is_op(&n, "Expand") || is_op(&n, "Reshape")) || n.input_size() != 2 || n.output_size() != 1)
    return false;
  auto in = shapes.find(n.input(0)), out = shapes.find(n.output(0));
  return in != shapes.end() && out != shapes.end() && same_dims(in->second, out->second);
}

// Not Mul and Div: ONNX Runtime fuses a Mul or Div by a scalar constant
// next to a MatMul into the MatMul's float32 alpha, which loses float64
// digits; a lowering that expands such a scalar on purpose
// (lower/matrix_exp.cpp) keeps it expanded.
bool broadcasts(const onnx::NodeProto& n) {
  static const std::set<std::string> ops = {"Add",  "Sub",     "Where",       "Equal",
                                            "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
                                            "And",  "Or",      "Max",         "Min"};
  return n.domain().empty() && ops.count(n.op_type()) > 0;
}

// For operand `k` of broadcasting node `n` that is Expand(c, Shape(y)) with
// `y` another operand of `n`: `c`.
std::optional<std::string> broadcast_source(const onnx::NodeProto& n, int k,
                                            const std::map<std::string, const onnx::NodeProto*>& producer) {
  auto e = producer.find(n.input(k));
  if (e == producer.end() || !is_op(e->second, "Expand") || e->second->input_size() != 2) return std::nullopt;
  auto s = producer.find(e->second->input(1));
  if (s == producer.end() || !is_op(s->second, "Shape") || s->second->attribute_size() != 0)
    return std::nullopt;
  const std::string& y = s->second->input(0);
  for (int j = 0; j < n.input_size(); ++j)
    if (j != k && n.input(j) == y) return e->second->input(0);
  return std::nullopt;
}

}  // namespace

void drop_shape_noops(onnx::GraphProto& g, PassReport& report, const SymbolicShapes& shapes) {
  const auto outputs = passes::graph_outputs(g);
  std::map<std::string, const onnx::NodeProto*> producer;
  std::map<std::string, std::string> renames;
  std::set<std::string> removed;
  for (int i = 0; i < g.node_size(); ++i) {
    auto& n = *g.mutable_node(i);
    for (auto& in : *n.mutable_input()) {  // reads of earlier dropped nodes, in graph order
      auto it = renames.find(in);
      if (it != renames.end()) in = it->second;
    }
    if (broadcasts(n))
      for (int k = 0; k < n.input_size(); ++k)
        if (auto c = broadcast_source(n, k, producer)) n.set_input(k, *c);
    if (keeps_shape(n, shapes) && !outputs.count(n.output(0))) {
      renames[n.output(0)] = n.input(0);
      removed.insert(n.name());
      continue;
    }
    for (const auto& o : n.output()) producer[o] = &n;
  }
  passes::rename_reads(g, renames);  // subgraph reads
  passes::remove_nodes(g, removed);
  report.removed.insert(removed.begin(), removed.end());
}

}  // namespace mx::aten_onnx
