// Tensors built from the elements of others, which the TRAINING level
// keeps whole (core ATen decomposes them into cat, expand, index and
// cumprod): block_diag, cartesian_prod, combinations and vander.
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

constexpr int32_t kInt64 = onnx::TensorProto::INT64;

// The size of dim d of v as a 1-D int64 [1], read in the graph when dynamic.
std::string size_of(OpContext& cx, const Value& v, int64_t d) {
  if (v.shape.at(d).is_static) return cx.ci64({v.shape[d].value});
  return cx.unsqueeze(cx.dim_size(v.onnx, d), {0});
}

// block_diag(tensors): the blocks (a 0-d one as [1, 1], a 1-d one as a
// row) on the diagonal of a zero matrix of their promoted dtype. Each is
// padded left by the columns of the blocks before it and right by those
// after it, and the rows stacked; dynamic sizes are summed in the graph.
void lower_block_diag(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const auto blocks = cx.tensor_list("tensors");
  std::vector<std::string> rows, cols;
  for (const Value* v : blocks) {
    const int64_t r = static_cast<int64_t>(v->shape.size());
    if (r > 2) cx.unsupported("block_diag of a tensor with more than 2 dims");
    const std::string m = cx.cast(v->onnx, v->dtype, dt);
    rows.push_back(r == 2 ? m
                          : cx.unsqueeze(m, r == 0 ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0}));
    cols.push_back(r == 0 ? cx.ci64({1}) : size_of(cx, *v, r - 1));
  }
  if (rows.empty()) cx.unsupported("block_diag of no tensor");
  auto sum = [&](size_t from, size_t to) {
    if (from >= to) return cx.ci64({0});
    std::string s = cols[from];
    for (size_t k = from + 1; k < to; ++k) s = cx.emit1("Add", {s, cols[k]});
    return s;
  };
  const std::string zero = cx.ci64({0});
  for (size_t k = 0; k < rows.size(); ++k) {
    const std::string pads =
        cx.emit1("Concat", {zero, sum(0, k), zero, sum(k + 1, cols.size())}, {attr("axis", int64_t{0})});
    rows[k] = cx.emit1("Pad", {rows[k], pads});
  }
  cx.out(0, rows.size() == 1 ? cx.emit1("Identity", {rows[0]})
                             : cx.emit1("Concat", rows, {attr("axis", int64_t{0})}));
}
MX_ATEN_LOWER(lower_block_diag, "aten.block_diag");

// cartesian_prod(tensors): the rows of meshgrid(*tensors, indexing="ij")
// flattened, one column per tensor; a single tensor is itself.
void lower_cartesian_prod(OpContext& cx) {
  const auto in = cx.tensor_list("tensors");
  const int32_t dt = cx.out_dtype();
  if (in.empty()) cx.unsupported("cartesian_prod of no tensor");
  if (in.size() == 1) return cx.out(0, cx.emit1("Identity", {cx.cast(in[0]->onnx, in[0]->dtype, dt)}));
  const int64_t n = static_cast<int64_t>(in.size());
  std::vector<std::string> sizes;
  for (const Value* v : in) {
    if (v->shape.size() != 1) cx.unsupported("cartesian_prod of a tensor that is not 1-d");
    sizes.push_back(size_of(cx, *v, 0));
  }
  const std::string grid = cx.emit1("Concat", sizes, {attr("axis", int64_t{0})});
  std::vector<std::string> columns;
  for (int64_t k = 0; k < n; ++k) {
    std::vector<int64_t> shape(static_cast<size_t>(n), 1);
    shape[static_cast<size_t>(k)] = -1;
    const std::string x = cx.cast(in[static_cast<size_t>(k)]->onnx, in[static_cast<size_t>(k)]->dtype, dt);
    const std::string spread = cx.emit1("Expand", {cx.emit1("Reshape", {x, cx.ci64(shape)}), grid});
    columns.push_back(cx.emit1("Reshape", {spread, cx.ci64({-1, 1})}));
  }
  cx.out(0, cx.emit1("Concat", columns, {attr("axis", int64_t{1})}));
}
MX_ATEN_LOWER(lower_cartesian_prod, "aten.cartesian_prod");

// The index tuples of combinations of n things taken r at a time, in
// itertools' (lexicographic) order: i1 < i2 < ... (<= with replacement).
std::vector<int64_t> combination_indices(int64_t n, int64_t r, bool with_replacement) {
  std::vector<int64_t> out, idx(static_cast<size_t>(r), 0);
  if (!with_replacement)
    for (int64_t j = 0; j < r; ++j) idx[static_cast<size_t>(j)] = j;
  if (n == 0 || (!with_replacement && r > n)) return out;
  while (true) {
    out.insert(out.end(), idx.begin(), idx.end());
    int64_t j = r - 1;  // the rightmost index that can still grow
    while (j >= 0 && idx[static_cast<size_t>(j)] == (with_replacement ? n - 1 : n - r + j)) --j;
    if (j < 0) return out;
    ++idx[static_cast<size_t>(j)];
    for (int64_t k = j + 1; k < r; ++k)
      idx[static_cast<size_t>(k)] = idx[static_cast<size_t>(j)] + (with_replacement ? 0 : k - j);
  }
}

// combinations(self, r=2, with_replacement=False) of a 1-d tensor: a
// [count, r] gather. Of a static size the index table is a constant; of a
// dynamic one the tuples are the nonzero positions of an r-dim mask i1 <
// i2 < ... over arange(n) (NonZero lists them in the same order).
void lower_combinations(OpContext& cx) {
  const Value& v = cx.value_of("self");
  if (v.shape.size() != 1) cx.unsupported("combinations of a tensor that is not 1-d");
  const int64_t r = cx.int_arg("r", 2);
  const bool with_replacement = cx.bool_arg("with_replacement", false);
  if (r < 0) cx.unsupported("combinations with a negative r");
  if (r == 0) return cx.out(0, cx.emit1("Slice", {v.onnx, cx.ci64({0}), cx.ci64({0}), cx.ci64({0})}));
  if (v.shape[0].is_static) {
    const std::vector<int64_t> idx = combination_indices(v.shape[0].value, r, with_replacement);
    const int64_t count = static_cast<int64_t>(idx.size()) / r;
    const std::string table = cx.emit1("Reshape", {cx.ci64(idx), cx.ci64({count, r})});
    return cx.out(0, cx.emit1("Gather", {v.onnx, table}, {attr("axis", int64_t{0})}));
  }
  const std::string ar = cx.emit1("Range", {cx.ci64s(0), cx.dim_size(v.onnx, 0), cx.ci64s(1)});  // int64 [n]
  std::vector<std::string> axes;
  for (int64_t j = 0; j < r; ++j) {
    std::vector<int64_t> shape(static_cast<size_t>(r), 1);
    shape[static_cast<size_t>(j)] = -1;
    axes.push_back(cx.emit1("Reshape", {ar, cx.ci64(shape)}));
  }
  std::string mask;
  for (int64_t j = 0; j + 1 < r; ++j) {
    const std::string ordered = cx.emit1(with_replacement ? "LessOrEqual" : "Less",
                                         {axes[static_cast<size_t>(j)], axes[static_cast<size_t>(j + 1)]});
    mask = mask.empty() ? ordered : cx.emit1("And", {mask, ordered});
  }
  if (mask.empty()) return cx.out(0, cx.unsqueeze(v.onnx, {1}));                 // r = 1: each element alone
  const std::string tuples = cx.transpose(cx.emit1("NonZero", {mask}), {1, 0});  // [count, r]
  cx.out(0, cx.emit1("Gather", {v.onnx, tuples}, {attr("axis", int64_t{0})}));
}
MX_ATEN_LOWER(lower_combinations, "aten.combinations");

// vander(x, N=None, increasing=False) = x[:, None] ** powers, the powers
// N - 1 .. 0 (0 .. N - 1 when increasing), N = len(x) by default.
// Integers and bools give int64 (computed in double: exact below 2^53).
void lower_vander(OpContext& cx) {
  const Value& v = cx.value_of("x");
  if (v.shape.size() != 1) cx.unsupported("vander of a tensor that is not 1-d");
  const int32_t out = cx.out_dtype();
  const int32_t dt = is_floating(out) ? out : onnx::TensorProto::DOUBLE;
  const std::string n = cx.has("N") ? cx.sym_int("N") : cx.dim_size(v.onnx, 0);
  const bool increasing = cx.bool_arg("increasing", false);
  const std::string one = cx.ci64s(1);
  const std::string powers = increasing
                                 ? cx.emit1("Range", {cx.ci64s(0), n, one})
                                 : cx.emit1("Range", {cx.emit1("Sub", {n, one}), cx.ci64s(-1), cx.ci64s(-1)});
  const std::string x = cx.unsqueeze(cx.cast(v.onnx, v.dtype, dt), {1});
  const std::string p = cx.unsqueeze(cx.cast(powers, kInt64, dt), {0});
  cx.out(0, cx.cast(cx.emit1("Pow", {x, p}), dt, out));
}
MX_ATEN_LOWER(lower_vander, "aten.vander");

}  // namespace
}  // namespace mx::aten_onnx
