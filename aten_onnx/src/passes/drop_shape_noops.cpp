// Shape glue that the program's own shapes prove does nothing.
//
// torch's decompositions (run_decompositions(): `linear`, `matmul` and
// `bmm` as `expand` + `view` + `bmm` + `view`) emit an `expand` and a
// `view` to the shape their input already has; lowered, they are an Expand
// and a Reshape that copy their input at run time. Whether they change
// anything is known only from the dims the program states (the frontend's
// SymbolicShapes): the input's and the output's dims are the same sizes or
// the same symbols. Such a node goes, its readers reading its input; so
// does a Slice by steps of 1 to its input's dims (core ATen's `slice` to a
// dim's static end, which a `Slice` to the end would be dropped for anyway).
//
// An element-wise op that broadcasts (Add, Where, ...; not Mul, Div) reading
// `Expand(c, Shape(y))` where `y` is another of its operands (`zeros_like`
// or `full_like` of one operand feeding a Where) reads `c` instead: the
// op's output shape already includes `y`'s, and broadcasting reads the same
// elements of `c` the Expand would have copied. The Expand and its Shape
// die when nothing else reads them.
//
// A MatMul reading `Expand(w, s)` that only gives `w` batch dims the other
// operand has (torch's `matmul` of a batched activation with a weight:
// `expand` to [B, K, N] then `bmm`) reads `w`: MatMul broadcasts batch dims
// itself, so its output is the same and the weight is not copied B times.
// Only for a float32 or float64 initializer (passes::float_initializer_dims
// says why).
#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "constant_data.hpp"
#include "graph_edit.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

using passes::is_op;

// Slice(x, starts, ends[, axes[, steps]]) by steps of 1 (none given, or a
// constant of ones): with the output's dims those of x, it takes x whole.
// A step of -1 would reverse x at the same dims.
bool slices_by_ones(const onnx::NodeProto& n, const std::map<std::string, passes::ConstantData>& constants) {
  if (!is_op(&n, "Slice") || n.input_size() < 3) return false;
  if (n.input_size() < 5 || n.input(4).empty()) return true;
  auto c = constants.find(n.input(4));
  const auto steps = passes::ints_of(c == constants.end() ? nullptr : &c->second);
  return steps && std::all_of(steps->begin(), steps->end(), [](int64_t s) { return s == 1; });
}

// An Expand, a Reshape or a Slice by steps of 1 whose output has its
// input's dims, by the program (`x[:, :n]` of an x of n columns, the
// overlap-add's `slice` of each frame's window in istft).
bool keeps_shape(const onnx::NodeProto& n, const SymbolicShapes& shapes,
                 const std::map<std::string, passes::ConstantData>& constants) {
  const bool reshapes = (is_op(&n, "Expand") || is_op(&n, "Reshape")) && n.input_size() == 2;
  if (!(reshapes || slices_by_ones(n, constants)) || n.output_size() != 1) return false;
  auto in = shapes.find(n.input(0)), out = shapes.find(n.output(0));
  return in != shapes.end() && out != shapes.end() && passes::same_dims(in->second, out->second);
}

// Mul and Div only when what is expanded is computed (F.normalize's
// `x / norm.expand_as(x)`): ONNX Runtime fuses a Mul or Div by a scalar
// constant next to a MatMul into the MatMul's float32 alpha, which loses
// float64 digits; a lowering that expands such a constant on purpose
// (lower/matrix_exp.cpp) keeps it expanded.
bool scales(const onnx::NodeProto& n) {
  return n.domain().empty() && (n.op_type() == "Mul" || n.op_type() == "Div");
}

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

// For operand `k` of MatMul `n` that is Expand(w, s) adding or widening only
// batch dims that the other operand has, with the same last two dims as
// `w` (rank >= 2): `w`.
std::optional<std::string> matmul_weight_source(
    const onnx::NodeProto& n, int k, const std::map<std::string, const onnx::NodeProto*>& producer,
    const SymbolicShapes& shapes, const passes::InitializerDims& initializers) {
  auto e = producer.find(n.input(k));
  if (e == producer.end() || !is_op(e->second, "Expand") || e->second->input_size() != 2) return std::nullopt;
  auto weight = initializers.find(e->second->input(0));
  if (weight == initializers.end()) return std::nullopt;
  const auto* w = &weight->second;
  const auto* x = passes::stored_dims(n.input(k), shapes, initializers);
  const auto* other = passes::stored_dims(n.input(1 - k), shapes, initializers);
  if (!w || !x || !other || w->size() < 2 || x->size() < w->size() || other->size() != x->size())
    return std::nullopt;
  const size_t lead = x->size() - w->size(), rank = x->size();
  for (size_t j = rank - 2; j < rank; ++j)
    if (!passes::same_dim((*w)[j - lead], (*x)[j])) return std::nullopt;
  for (size_t j = 0; j + 2 < rank; ++j) {
    const bool from_w = j >= lead && passes::same_dim((*w)[j - lead], (*x)[j]);
    if (!from_w && !passes::same_dim((*other)[j], (*x)[j])) return std::nullopt;
  }
  return e->second->input(0);
}

}  // namespace

void drop_shape_noops(onnx::GraphProto& g, PassReport& report, const SymbolicShapes& shapes) {
  std::map<std::string, const onnx::NodeProto*> producer;
  const auto initializers = passes::float_initializer_dims(g);
  const auto constants = passes::small_constants(g, 64);
  passes::drop_passed_through(g, report, [&](onnx::NodeProto& n) -> std::optional<std::string> {
    if (is_op(&n, "MatMul") && n.input_size() == 2)
      for (int k = 0; k < 2; ++k)
        if (auto w = matmul_weight_source(n, k, producer, shapes, initializers)) n.set_input(k, *w);
    if (broadcasts(n) || scales(n))
      for (int k = 0; k < n.input_size(); ++k)
        if (auto c = broadcast_source(n, k, producer)) {
          auto p = producer.find(*c);
          const bool computed = p != producer.end() && !is_op(p->second, "Constant");
          if (!scales(n) || computed) n.set_input(k, *c);
        }
    for (const auto& o : n.output()) producer[o] = &n;
    if (keeps_shape(n, shapes, constants)) return n.input(0);
    return std::nullopt;
  });
}

}  // namespace mx::aten_onnx
