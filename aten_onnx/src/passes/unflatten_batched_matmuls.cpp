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
//
// A Linear over more than two dims in core ATen is the same with a 2-D
// float32 or float64 weight: `view` of x [*batch, K] to [P, K], `mm` by w [K, N], `view` to
// [*batch, N] (two Reshapes around each Linear's MatMul, where the
// anchor's file has the MatMul alone). MatMul broadcasts a 2-D right
// operand over x's batch dims, so the MatMul reads x and writes the
// result's name. With a bias, core ATen's `addmm` is a Gemm (weight stored
// [K, N], alpha and beta 1): it becomes that MatMul, and the Reshape back
// the Add of the bias (under the Reshape's name and record), as torch.onnx
// writes a Linear over more than two dims.
#include <functional>
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

// The value a Reshape `flat` flattens to [P, *kept]: an operand of
// [*batch, *kept] whose last `kept` dims stay (2 for a batched operand of
// a bmm, 1 for a Linear's input) and whose leading dims are `batch` (the
// result's); nothing otherwise.
std::optional<std::string> unflattened(const onnx::NodeProto* flat, const Dims& batch, size_t kept,
                                       const SymbolicShapes& shapes) {
  if (!is_op(flat, "Reshape") || flat->input_size() != 2) return std::nullopt;
  const Dims* in = dims_of(shapes, flat->input(0));
  const Dims* out = dims_of(shapes, flat->output(0));
  if (!in || !out || out->size() != kept + 1 || in->size() != batch.size() + kept) return std::nullopt;
  if (!same_range(*in, batch.size(), *out, 1, kept) || !same_range(*in, 0, batch, 0, batch.size()))
    return std::nullopt;
  return flat->input(0);
}

// The MatMul's new inputs when its Reshapes only flatten and restore the
// batch dims of the result `out`: batched (both operands flattened) or a
// Linear (the left one flattened, the right one a 2-D float32 or float64
// weight: passes::float_initializer_dims says why no other).
std::optional<std::pair<std::string, std::string>> unflattened_operands(
    const onnx::NodeProto& mm, const Dims& out, const SymbolicShapes& shapes,
    const passes::InitializerDims& initializers, const std::function<onnx::NodeProto*(const std::string&)>& made_by) {
  const Dims batch(out.begin(), out.end() - 2);
  const auto a = unflattened(made_by(mm.input(0)), batch, 2, shapes);
  const auto b = unflattened(made_by(mm.input(1)), batch, 2, shapes);
  if (a && b) {
    const Dims *da = dims_of(shapes, *a), *db = dims_of(shapes, *b);
    // [*batch, M, K] @ [*batch, K, N] = [*batch, M, N]: M from a, N from b
    if (same_dim((*da)[batch.size()], out[batch.size()]) && same_dim((*db)[batch.size() + 1], out[batch.size() + 1]))
      return std::make_pair(*a, *b);
  }
  // [*rows, K] @ [K, N] = [*rows, N]
  const Dims rows(out.begin(), out.end() - 1);
  auto w = initializers.find(mm.input(1));
  if (w == initializers.end() || w->second.size() != 2 || !same_dim(w->second[1], out.back())) return std::nullopt;
  const auto x = unflattened(made_by(mm.input(0)), rows, 1, shapes);
  if (!x || !same_dim(dims_of(shapes, *x)->back(), w->second[0])) return std::nullopt;
  return std::make_pair(*x, mm.input(1));
}

// A Gemm that is a plain A B + C (as addmm lowers, the weight already in
// [K, N]) with C absent or one value per column.
bool plain_gemm(const onnx::NodeProto& n, const SymbolicShapes& shapes, const passes::InitializerDims& initializers,
                const Dims& out) {
  auto f = [&](const char* name) {
    const auto* a = passes::find_attr(n, name);
    return a ? a->f() : 1.0f;
  };
  if (f("alpha") != 1.0f || f("beta") != 1.0f || passes::int_attr(n, "transA", 0) != 0 ||
      passes::int_attr(n, "transB", 0) != 0)
    return false;
  if (n.input_size() < 3 || n.input(2).empty()) return true;
  const Dims* c = passes::stored_dims(n.input(2), shapes, initializers);
  return c && (c->empty() || (c->size() == 1 && same_dim((*c)[0], out.back())));
}

}  // namespace

void unflatten_batched_matmuls(onnx::GraphProto& g, PassReport& report, const SymbolicShapes& shapes) {
  if (shapes.empty()) return;
  const auto outputs = passes::graph_outputs(g);
  const auto in_subgraphs = passes::subgraph_reads(g);
  std::map<std::string, int> producer;
  auto readers = passes::read_counts(g);
  const auto initializers = passes::float_initializer_dims(g);
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
    const bool gemm = is_op(mm, "Gemm");
    if (!(is_op(mm, "MatMul") || gemm) || readers[mm->output(0)] != 1 || in_subgraphs.count(mm->output(0)))
      continue;
    const Dims* out = dims_of(shapes, restore.output(0));
    if (!out || out->size() < 3 || (gemm && !plain_gemm(*mm, shapes, initializers, *out))) continue;
    const auto ab = unflattened_operands(*mm, *out, shapes, initializers, made_by);
    if (!ab) continue;
    const std::string bias = gemm && mm->input_size() == 3 ? mm->input(2) : "";
    mm->set_op_type("MatMul");
    mm->clear_attribute();
    mm->clear_input();
    mm->add_input(ab->first);
    mm->add_input(ab->second);
    if (bias.empty()) {
      mm->set_output(0, restore.output(0));
      removed.insert(restore.name());
      continue;
    }
    // The product is a new value (the Gemm's name has the program's
    // flattened dims); the Reshape becomes the Add of the bias.
    mm->set_output(0, restore.output(0) + "_product");
    auto& add = *g.mutable_node(i);
    add.set_op_type("Add");
    add.clear_attribute();
    add.set_input(0, mm->output(0));
    add.set_input(1, bias);
  }
  passes::remove_nodes(g, removed);
  report.removed.insert(removed.begin(), removed.end());
}

}  // namespace mx::aten_onnx
