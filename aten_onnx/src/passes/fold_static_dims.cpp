// A read of dims the program states as static becomes a constant.
//
// Lowerings that take part of a tensor's shape (Resize's sizes: the input's
// N and C then the new spatial sizes; a view's leading dims) read it at run
// time with Shape and then Slice or Gather, because they do not know which
// dims the exported program keeps dynamic. The frontend's SymbolicShapes do:
// torch.export guards every dim it leaves as a number, so that number is
// what Shape would return for every input the program accepts. Here
//   Shape(x, start, end)            -> its dims, all static
//   Slice(Shape(x), [a], [b])       -> dims a..b of x, all static
//   Gather(Shape(x), i), axis 0     -> dim i (or the dims of a 1-D index)
// become Constant nodes of those values, keeping their names (and module
// records); fold_constants then folds the arithmetic reading them and the
// Shape left without readers dies. Reads that touch a dynamic dim stay.
#include <algorithm>
#include <map>

#include "graph_edit.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

using passes::int_attr;
using passes::is_op;

// The dims `shape` (a Shape node) returns, when the program states x's dims
// and `shape` selects a range of them; nullopt entries are dynamic dims.
std::optional<std::vector<std::optional<int64_t>>> dims_read(const onnx::NodeProto& shape,
                                                             const SymbolicShapes& shapes) {
  auto it = shapes.find(shape.input(0));
  if (it == shapes.end()) return std::nullopt;
  const auto& dims = it->second;
  const auto [start, end] = passes::shape_range(shape, static_cast<int64_t>(dims.size()));
  std::vector<std::optional<int64_t>> out;
  for (int64_t d = start; d < end; ++d) out.push_back(dims[static_cast<size_t>(d)].size);
  return out;
}

bool all_static(const std::vector<std::optional<int64_t>>& dims) {
  return std::all_of(dims.begin(), dims.end(), [](const auto& d) { return d.has_value(); });
}

std::vector<int64_t> values(const std::vector<std::optional<int64_t>>& dims) {
  std::vector<int64_t> v;
  for (const auto& d : dims) v.push_back(*d);
  return v;
}

struct Reads {
  std::map<std::string, const onnx::NodeProto*> producer;
  const SymbolicShapes& shapes;

  const onnx::NodeProto* of(const std::string& v) const {
    auto it = producer.find(v);
    return it == producer.end() ? nullptr : it->second;
  }
  std::optional<passes::Int64Constant> constant(const std::string& v) const {
    const auto* p = of(v);
    return p ? passes::int64_constant(*p) : std::nullopt;
  }
  // The dims a Shape node producing `v` returns.
  std::optional<std::vector<std::optional<int64_t>>> shape_dims(const std::string& v) const {
    const auto* p = of(v);
    if (!is_op(p, "Shape")) return std::nullopt;
    return dims_read(*p, shapes);
  }
};

// Slice(dims, [a], [b][, [0][, [1]]]): dims a..b, when all static.
std::optional<std::vector<int64_t>> sliced(const onnx::NodeProto& n, const Reads& r) {
  if (n.input_size() < 3) return std::nullopt;
  const auto dims = r.shape_dims(n.input(0));
  if (!dims) return std::nullopt;
  const auto starts = r.constant(n.input(1)), ends = r.constant(n.input(2));
  if (!starts || !ends || starts->values.size() != 1 || ends->values.size() != 1) return std::nullopt;
  if (n.input_size() > 3 && !n.input(3).empty()) {
    const auto axes = r.constant(n.input(3));
    if (!axes || axes->values.size() != 1 || (axes->values[0] != 0 && axes->values[0] != -1))
      return std::nullopt;
  }
  if (n.input_size() > 4 && !n.input(4).empty()) {
    const auto steps = r.constant(n.input(4));
    if (!steps || steps->values != std::vector<int64_t>{1}) return std::nullopt;
  }
  const int64_t len = static_cast<int64_t>(dims->size());
  auto clamp = [len](int64_t v) { return std::clamp(v < 0 ? v + len : v, int64_t{0}, len); };
  const int64_t a = clamp(starts->values[0]), b = clamp(ends->values[0]);
  std::vector<std::optional<int64_t>> part;
  for (int64_t d = a; d < b; ++d) part.push_back((*dims)[static_cast<size_t>(d)]);
  if (!all_static(part)) return std::nullopt;
  return values(part);
}

// Gather(dims, i) on axis 0 with a 0-d or 1-D constant index.
std::optional<std::pair<std::vector<int64_t>, bool>> gathered(const onnx::NodeProto& n, const Reads& r) {
  if (n.input_size() != 2 || int_attr(n, "axis", 0) != 0) return std::nullopt;
  const auto dims = r.shape_dims(n.input(0));
  const auto index = r.constant(n.input(1));
  if (!dims || !index || index->rank > 1) return std::nullopt;
  const int64_t len = static_cast<int64_t>(dims->size());
  std::vector<int64_t> out;
  for (int64_t i : index->values) {
    if (i < 0) i += len;
    if (i < 0 || i >= len || !(*dims)[static_cast<size_t>(i)]) return std::nullopt;
    out.push_back(*(*dims)[static_cast<size_t>(i)]);
  }
  return std::make_pair(out, index->rank == 0);
}

}  // namespace

void fold_static_dims(onnx::GraphProto& g, const SymbolicShapes& shapes) {
  if (shapes.empty()) return;
  Reads r{{}, shapes};
  for (const auto& n : g.node())
    for (const auto& o : n.output()) r.producer[o] = &n;
  // Reads are decided on the graph as it was, then rewritten: a Shape
  // turned into a Constant first would hide the Slices that read it.
  std::vector<std::pair<int, std::pair<std::vector<int64_t>, bool>>> folds;
  for (int k = 0; k < g.node_size(); ++k) {
    const auto& n = g.node(k);
    if (!n.domain().empty()) continue;
    if (n.op_type() == "Shape") {
      const auto dims = dims_read(n, shapes);
      if (dims && all_static(*dims)) folds.push_back({k, {values(*dims), false}});
    } else if (n.op_type() == "Slice") {
      if (const auto v = sliced(n, r)) folds.push_back({k, {*v, false}});
    } else if (n.op_type() == "Gather") {
      if (const auto v = gathered(n, r)) folds.push_back({k, *v});
    }
  }
  for (const auto& [k, v] : folds) passes::make_int64_constant(*g.mutable_node(k), v.first, v.second);
}

}  // namespace mx::aten_onnx
