// A batched MatMul between two Reshapes that only flatten and restore its
// batch dims is the MatMul of the unflattened values.
//
// torch's `matmul` of rank-4 attention tensors reaches the program as
// `view` to [B*H, M, K] and [B*H, K, N], `bmm`, `view` back to
// [B, H, M, N]; lowered, three Reshapes around a MatMul that broadcasts
// batch dims itself. Reshape(MatMul(Reshape(a), Reshape(b))) is
// MatMul(a, b) when, by the program's dims (SymbolicShapes), a is
// [*batch, M, K] and its Reshape [P, M, K], b is [*batch, K, N] and its
// Reshape [P, K, N], and the result is [*batch, M, N], the same `batch`
// each time: the flattening is row-major over the same batch dims on every
// side. The MatMul node (and its module record) stays, reading a and b and
// writing the result's name (so every value keeps the dims the program
// states for its name); the three Reshapes go when nothing else reads them.
#include <map>
#include <set>

#include "graph_edit.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

using passes::is_op;
using passes::same_dim;
using Dims = std::vector<SymbolicDim>;

// dims [from, to) of `a` and `b` equal, one by one.
bool same_range(const Dims& a, size_t a_from, const Dims& b, size_t b_from, size_t count) {
  if (a.size() < a_from + count || b.size() < b_from + count) return false;
  for (size_t k = 0; k < count; ++k)
    if (!same_dim(a[a_from + k], b[b_from + k])) return false;
  return true;
}

const Dims* dims_of(const SymbolicShapes& shapes, const std::string& name) {
  auto it = shapes.find(name);
  return it == shapes.end() ? nullptr : &it->second;
}

// The value a rank-3 Reshape `flat` of a batched operand flattens, when its
// last two dims are the operand's and the operand's batch dims are
// `batch` (the result's); nothing otherwise.
std::optional<std::string> unflattened(const onnx::NodeProto* flat, const Dims& batch,
                                       const SymbolicShapes& shapes) {
  if (!is_op(flat, "Reshape") || flat->input_size() != 2) return std::nullopt;
  const Dims* in = dims_of(shapes, flat->input(0));
  const Dims* out = dims_of(shapes, flat->output(0));
  if (!in || !out || out->size() != 3 || in->size() != batch.size() + 2) return std::nullopt;
  if (!same_range(*in, batch.size(), *out, 1, 2) || !same_range(*in, 0, batch, 0, batch.size()))
    return std::nullopt;
  return flat->input(0);
}

}  // namespace

void unflatten_batched_matmuls(onnx::GraphProto& g, PassReport& report, const SymbolicShapes& shapes) {
  if (shapes.empty()) return;
  const auto outputs = passes::graph_outputs(g);
  const auto in_subgraphs = passes::subgraph_reads(g);
  std::map<std::string, int> producer;
  auto readers = passes::read_counts(g);
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& o : g.node(i).output()) producer[o] = i;
  auto made_by = [&](const std::string& v) -> onnx::NodeProto* {
    auto p = producer.find(v);
    return p == producer.end() ? nullptr : g.mutable_node(p->second);
  };
  std::set<std::string> removed;
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& restore = g.node(i);  // Reshape back to [*batch, M, N]
    if (!is_op(&restore, "Reshape") || restore.input_size() != 2 || outputs.count(restore.output(0)))
      continue;
    onnx::NodeProto* mm = made_by(restore.input(0));
    if (!is_op(mm, "MatMul") || readers[mm->output(0)] != 1 || in_subgraphs.count(mm->output(0))) continue;
    const Dims* out = dims_of(shapes, restore.output(0));
    if (!out || out->size() < 3) continue;
    const Dims batch(out->begin(), out->end() - 2);
    const auto a = unflattened(made_by(mm->input(0)), batch, shapes);
    const auto b = unflattened(made_by(mm->input(1)), batch, shapes);
    if (!a || !b) continue;
    const Dims *da = dims_of(shapes, *a), *db = dims_of(shapes, *b);
    // [*batch, M, K] @ [*batch, K, N] = [*batch, M, N]: M from a, N from b
    if (!same_dim((*da)[batch.size()], (*out)[batch.size()]) ||
        !same_dim((*db)[batch.size() + 1], (*out)[batch.size() + 1]))
      continue;
    mm->set_input(0, *a);
    mm->set_input(1, *b);
    mm->set_output(0, restore.output(0));
    removed.insert(restore.name());
  }
  passes::remove_nodes(g, removed);
  report.removed.insert(removed.begin(), removed.end());
}

}  // namespace mx::aten_onnx
