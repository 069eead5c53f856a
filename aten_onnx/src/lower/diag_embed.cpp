// diag_embed(self, offset=0, dim1=-2, dim2=-1), diag, diagflat and
// diagonal_scatter.
//
// diag_embed: the last dim of self (size
// N) becomes the offset diagonal of M x M matrices, M = N + |offset|. On the
// M x M grid of rows r and columns c, element (r, c) is x[r] (offset >= 0)
// or x[c] (offset < 0) of x padded to M where c - r == offset, else 0; the
// two new dims are then moved to dim1 and dim2. Where, not a product with
// an identity, so inf and NaN stay on the diagonal only.
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

// The M x M matrices (over the last two dims) with x's last dim on their
// `offset` diagonal.
std::string embedded(OpContext& cx, const Value& v, int64_t offset) {
  const int64_t in_rank = static_cast<int64_t>(v.shape.size());
  const int64_t pad = offset < 0 ? -offset : offset;
  std::string x = v.onnx;
  if (pad) {
    std::vector<int64_t> pads(2 * in_rank, 0);
    pads[2 * in_rank - 1] = pad;  // after the last dim
    x = cx.emit1("Pad", {x, cx.ci64(pads), cx.cscalar(0, v.dtype)});
  }
  const std::string m = cx.dim_size(x, in_rank - 1);
  const std::string cols = cx.emit1("Range", {cx.ci64s(0), m, cx.ci64s(1)});  // [M]
  const std::string rows = cx.unsqueeze(cols, {1});                           // [M, 1]
  const std::string on_diagonal = cx.emit1("Equal", {cx.emit1("Sub", {cols, rows}), cx.ci64s(offset)});
  // x[r] lies along the rows ([..., M, 1]), x[c] along the columns ([..., 1, M]).
  const std::string along = cx.unsqueeze(x, {offset >= 0 ? in_rank : in_rank - 1});
  return cx.emit1("Where", {on_diagonal, along, cx.cscalar(0, v.dtype)});  // [..., M, M]
}

void lower_diag_embed(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t in_rank = static_cast<int64_t>(v.shape.size());
  if (in_rank == 0) cx.unsupported("diag_embed of a 0-d tensor");
  const int64_t r = in_rank + 1, offset = cx.int_arg("offset", 0);
  const int64_t d1 = norm_dim(cx.int_arg("dim1", -2), r), d2 = norm_dim(cx.int_arg("dim2", -1), r);
  if (d1 == d2) cx.unsupported("diag_embed with dim1 == dim2");
  const std::string grid = embedded(cx, v, offset);
  // grid's axes: batch dims 0..r-3, then dim1's (r-2) and dim2's (r-1).
  std::vector<int64_t> perm(r);
  for (int64_t p = 0, batch = 0; p < r; ++p) perm[p] = p == d1 ? r - 2 : p == d2 ? r - 1 : batch++;
  bool identity = true;
  for (int64_t p = 0; p < r; ++p) identity &= perm[p] == p;
  cx.out(0, identity ? grid : cx.transpose(grid, perm));
}
MX_ATEN_LOWER(lower_diag_embed, "aten.diag_embed.default");

// The `offset` diagonal of a matrix x [R, C]: x[i, i + offset] (i >= 0,
// i + offset >= 0), as many as fit, gathered by index pairs.
std::string diagonal_of(OpContext& cx, const std::string& x, int64_t offset) {
  const std::string rows = cx.dim_size(x, 0), cols = cx.dim_size(x, 1);
  const std::string k = cx.ci64s(offset < 0 ? -offset : offset);
  // offset >= 0: min(R, C - k) elements from (0, k); else min(R - k, C) from (k, 0)
  const std::string n =
      cx.emit1("Max", {cx.ci64s(0), offset >= 0 ? cx.emit1("Min", {rows, cx.emit1("Sub", {cols, k})})
                                                : cx.emit1("Min", {cx.emit1("Sub", {rows, k}), cols})});
  const std::string i = cx.emit1("Range", {cx.ci64s(0), n, cx.ci64s(1)});
  const std::string r = offset >= 0 ? i : cx.emit1("Add", {i, k}),
                    c = offset >= 0 ? cx.emit1("Add", {i, k}) : i;
  const std::string pairs =
      cx.emit1("Concat", {cx.unsqueeze(r, {1}), cx.unsqueeze(c, {1})}, {attr("axis", int64_t{1})});
  return cx.emit1("GatherND", {x, pairs});
}

// diag(self, diagonal=0): a 1-D self becomes the `diagonal` diagonal of a
// square matrix; a 2-D one gives that diagonal. diagflat(self, offset=0):
// self flattened, then as a 1-D diag.
void lower_diag(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const bool flat = cx.op() == "diagflat";
  const int64_t offset = cx.int_arg(flat ? "offset" : "diagonal", 0);
  if (flat || v.shape.size() == 1) {
    Value row = v;
    if (flat) {
      row.onnx = cx.emit1("Reshape", {v.onnx, cx.ci64({-1})});
      row.shape = {Dim{false, 0, "", "numel"}};
    }
    return cx.out(0, embedded(cx, row, offset));
  }
  if (v.shape.size() != 2) cx.unsupported("diag of a tensor that is not 1-D or 2-D");
  cx.out(0, diagonal_of(cx, v.onnx, offset));
}
MX_ATEN_LOWER(lower_diag, "aten.diag", "aten.diagflat");

// diagonal_scatter(self, src, offset=0, dim1=0, dim2=1): self with src on
// its `offset` diagonal over dim1 x dim2 (src: self's other dims, then the
// diagonal's length). With dim1 and dim2 moved last, element (r, c) on the
// diagonal (c - r == offset) takes src[..., r] (offset >= 0) or src[..., c].
void lower_diagonal_scatter(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t r = cx.rank_of("self"), offset = cx.int_arg("offset", 0);
  if (r < 2) cx.unsupported("diagonal_scatter of a tensor of rank below 2");
  const int64_t d1 = norm_dim(cx.int_arg("dim1", 0), r), d2 = norm_dim(cx.int_arg("dim2", 1), r);
  if (d1 == d2) cx.unsupported("diagonal_scatter with dim1 == dim2");
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < r; ++d)
    if (d != d1 && d != d2) perm.push_back(d);
  perm.push_back(d1);
  perm.push_back(d2);
  bool identity = true;
  for (int64_t d = 0; d < r; ++d) identity &= perm[static_cast<size_t>(d)] == d;
  std::string x = cx.operand("self", dt);
  if (!identity) x = cx.transpose(x, perm);
  const std::string rows =
      cx.unsqueeze(cx.emit1("Range", {cx.ci64s(0), cx.dim_size(x, r - 2), cx.ci64s(1)}), {1});
  const std::string cols = cx.emit1("Range", {cx.ci64s(0), cx.dim_size(x, r - 1), cx.ci64s(1)});
  const std::string on_diagonal = cx.emit1("Equal", {cx.emit1("Sub", {cols, rows}), cx.ci64s(offset)});
  // src's index at (r, c): r or c on the diagonal, 0 elsewhere (in range).
  const std::string along = offset >= 0 ? cx.emit1("Add", {rows, cx.emit1("Mul", {cols, cx.ci64s(0)})})
                                        : cx.emit1("Add", {cols, cx.emit1("Mul", {rows, cx.ci64s(0)})});
  const std::string index = cx.emit1("Where", {on_diagonal, along, cx.ci64s(0)});  // [R, C]
  const std::string placed = cx.emit1("Gather", {cx.operand("src", dt), index}, {attr("axis", r - 2)});
  std::string y = cx.emit1("Where", {on_diagonal, placed, x});
  if (!identity) {
    std::vector<int64_t> back(static_cast<size_t>(r));
    for (int64_t p = 0; p < r; ++p) back[static_cast<size_t>(perm[static_cast<size_t>(p)])] = p;
    y = cx.transpose(y, back);
  }
  cx.out(0, y);
}
MX_ATEN_LOWER(lower_diagonal_scatter, "aten.diagonal_scatter");

}  // namespace
}  // namespace mx::aten_onnx
