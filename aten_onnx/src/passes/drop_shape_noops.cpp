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

// An Expand or Reshape whose output has its input's dims, by the program.
bool keeps_shape(const onnx::NodeProto& n, const SymbolicShapes& shapes) {
  if (!(is_op(&n, "Expand") || is_op(&n, "Reshape")) || n.input_size() != 2 || n.output_size() != 1)
    return false;
  auto in = shapes.find(n.input(0)), out = shapes.find(n.output(0));
  return in != shapes.end() && out != shapes.end() && passes::same_dims(in->second, out->second);
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
  std::map<std::string, const onnx::NodeProto*> producer;
  passes::drop_passed_through(g, report, [&](onnx::NodeProto& n) -> std::optional<std::string> {
    if (broadcasts(n))
      for (int k = 0; k < n.input_size(); ++k)
        if (auto c = broadcast_source(n, k, producer)) n.set_input(k, *c);
    for (const auto& o : n.output()) producer[o] = &n;
    if (keeps_shape(n, shapes)) return n.input(0);
    return std::nullopt;
  });
}

}  // namespace mx::aten_onnx
