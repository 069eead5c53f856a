// A `Shape` of a value whose dims the program states as sizes is a
// constant. fold_constants folds the Shape of a graph input or an
// initializer only (the graph alone says nothing of an intermediate
// value's dims); the frontend's SymbolicShapes do: a lowering that reads
// its input's dims through Shape, written for dims known at run time only
// (an interpolation's output sizes, a view's target), then folds when the
// program is static there, with the Slices and Concats that use it.
#include <algorithm>

#include "graph_edit.hpp"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

// dims[start:end] with ONNX Shape's clamping of start and end.
std::vector<int64_t> shape_slice(const onnx::NodeProto& n, const std::vector<int64_t>& dims) {
  const auto rank = static_cast<int64_t>(dims.size());
  int64_t start = passes::int_attr(n, "start", 0), end = passes::int_attr(n, "end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  return {dims.begin() + start, dims.begin() + end};
}

}  // namespace

void fold_static_shapes(onnx::GraphProto& g, const SymbolicShapes& shapes) {
  for (auto& n : *g.mutable_node()) {
    if (n.op_type() != "Shape" || !n.domain().empty() || n.input_size() != 1) continue;
    auto it = shapes.find(n.input(0));
    if (it == shapes.end()) continue;
    std::vector<int64_t> dims;
    for (const auto& d : it->second) {
      if (!d.size) break;
      dims.push_back(*d.size);
    }
    if (dims.size() != it->second.size()) continue;  // a dim known at run time only
    const std::vector<int64_t> v = shape_slice(n, dims);
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::INT64);
    t.add_dims(static_cast<int64_t>(v.size()));
    t.set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(int64_t)));
    // The node becomes the Constant under its own name and record; the
    // value it read may die with the dead-node pass.
    n.clear_input();
    n.clear_attribute();
    n.set_op_type("Constant");
    *n.add_attribute() = attr("value", t);
  }
}

}  // namespace mx::aten_onnx
