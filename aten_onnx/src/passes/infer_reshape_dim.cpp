// A view's target shape is lowered as a Concat of its dims: constants for
// the static ones, a Shape slice or an Unsqueeze'd scalar for each dynamic
// one. With exactly one dynamic dim and every static dim positive, the
// Reshape computes that dim itself (-1: numel / product of the others), so
// its shape is one constant and the glue that computed the dim goes (dead
// nodes are removed after the passes). With the dims the frontend's program
// states for the Reshape's input and output, a dynamic dim the input has at
// the same position is 0 (copied) and one more may be -1. The constant is
// an initializer named after the Reshape, not a new node: no node without
// a module record. A Reshape of a Reshape (`view` of a `view`: a Linear's
// output, then its heads) reshapes the first one's input directly when the
// program's dims cover it.
#include <algorithm>
#include <map>

#include "graph_edit.hpp"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

using passes::int_attr;
using passes::is_op;

// Whether `n`, a 1-D input of a Concat, holds exactly one element: an
// Unsqueeze of one axis (its result is 1-D, so its input is a scalar) or
// Shape(x, start=i, end=i+1).
bool one_element(const onnx::NodeProto* n, const std::map<std::string, const onnx::NodeProto*>& producer) {
  if (is_op(n, "Unsqueeze")) {
    if (n->input_size() != 2) return false;
    auto axes = producer.find(n->input(1));
    if (axes == producer.end()) return false;
    const auto c = passes::int64_constant(*axes->second);
    return c && c->values.size() == 1;
  }
  if (is_op(n, "Shape")) {
    const int64_t start = int_attr(*n, "start", -1), end = int_attr(*n, "end", -1);
    return start >= 0 && end == start + 1;
  }
  return false;
}

// The Reshape shape `concat` stands for, with its one dynamic dim as -1;
// nothing when it is not of that form.
std::optional<std::vector<int64_t>> with_inferred_dim(
    const onnx::NodeProto& concat, const std::map<std::string, const onnx::NodeProto*>& producer) {
  if (!is_op(&concat, "Concat") || int_attr(concat, "axis", 1) != 0) return std::nullopt;
  std::vector<int64_t> dims;
  int dynamic = 0;
  for (const auto& in : concat.input()) {
    auto p = producer.find(in);
    if (p == producer.end()) return std::nullopt;  // a graph input or initializer: unknown size
    if (const auto c = passes::int64_constant(*p->second)) {
      if (c->rank != 1 || std::any_of(c->values.begin(), c->values.end(), [](int64_t v) { return v <= 0; }))
        return std::nullopt;
      dims.insert(dims.end(), c->values.begin(), c->values.end());
    } else if (one_element(p->second, producer)) {
      ++dynamic;
      dims.push_back(-1);
    } else {
      return std::nullopt;
    }
  }
  if (dynamic != 1) return std::nullopt;
  return dims;
}

// The shape that reshapes `input` to `output` from the dims the program
// states for them: static dims, 0 for a dynamic dim the input has at the
// same position, -1 for at most one other; nothing when that does not
// cover it.
std::optional<std::vector<int64_t>> from_program(const std::string& input, const std::string& output,
                                                 bool allowzero, const SymbolicShapes& shapes) {
  if (shapes.empty()) return std::nullopt;
  auto in = shapes.find(input), out = shapes.find(output);
  if (in == shapes.end() || out == shapes.end()) return std::nullopt;
  std::vector<int64_t> dims;
  int inferred = 0;
  for (size_t p = 0; p < out->second.size(); ++p) {
    const SymbolicDim& d = out->second[p];
    if (d.size) {
      if (*d.size <= 0) return std::nullopt;  // 0 would copy; -1 cannot be inferred past a 0
      dims.push_back(*d.size);
    } else if (!allowzero && p < in->second.size() && passes::same_dim(in->second[p], d)) {
      dims.push_back(0);
    } else {
      ++inferred;
      dims.push_back(-1);
    }
  }
  if (inferred > 1) return std::nullopt;
  return dims;
}

bool allows_zero(const onnx::NodeProto& n) {
  return int_attr(n, "allowzero", 0) != 0;
}

// Reshape(Reshape(x, s1), s2) as Reshape(x, s): the dims the program states
// for x and for the outer output say what s is (the inner one dies when
// nothing else reads it). Nodes are visited in graph order, so an inner
// Reshape already reads the start of its own chain.
std::optional<std::vector<int64_t>> merged_with_inner(
    onnx::NodeProto& n, const std::map<std::string, const onnx::NodeProto*>& producer,
    const SymbolicShapes& shapes) {
  auto p = producer.find(n.input(0));
  if (p == producer.end() || !is_op(p->second, "Reshape") || p->second->input_size() != 2 ||
      allows_zero(*p->second) || allows_zero(n) || n.output_size() != 1)
    return std::nullopt;
  auto dims = from_program(p->second->input(0), n.output(0), false, shapes);
  if (dims) n.set_input(0, p->second->input(0));
  return dims;
}

}  // namespace

void infer_reshape_dim(onnx::GraphProto& g, PassReport&, const SymbolicShapes& shapes) {
  std::map<std::string, const onnx::NodeProto*> producer;
  for (const auto& n : g.node())
    for (const auto& o : n.output()) producer[o] = &n;
  std::set<std::string> names;
  for (const auto& t : g.initializer()) names.insert(t.name());
  for (const auto& v : g.input()) names.insert(v.name());
  std::map<std::vector<int64_t>, std::string> made;  // one initializer per shape
  std::map<int, std::string> new_shape;              // Reshape index -> its shape initializer
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (!is_op(&n, "Reshape") || n.input_size() != 2) continue;
    auto dims = merged_with_inner(*g.mutable_node(i), producer, shapes);
    if (!dims) {
      auto p = producer.find(n.input(1));
      if (p == producer.end() || passes::int64_constant(*p->second))
        continue;  // an initializer or constant already
      if (n.output_size() == 1) dims = from_program(n.input(0), n.output(0), allows_zero(n), shapes);
      if (!dims) dims = with_inferred_dim(*p->second, producer);
    }
    if (!dims) continue;
    auto& name = made[*dims];
    if (name.empty()) {
      name = (n.name().empty() ? n.output(0) : n.name()) + "_shape";
      while (names.count(name) || producer.count(name)) name += "_";
      names.insert(name);
      auto* t = g.add_initializer();
      *t = int64_tensor(*dims);
      t->set_name(name);
    }
    new_shape[i] = name;
  }
  for (const auto& [i, name] : new_shape) g.mutable_node(i)->set_input(1, name);
}

}  // namespace mx::aten_onnx
