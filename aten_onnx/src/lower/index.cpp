// Indexing: index.Tensor (one index tensor, leading None dims allowed),
// index_select, gather, embedding-style lookups.
#include "mx/onnx_proto.hpp"

#include <algorithm>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

// index.Tensor(self, indices): advanced indexing with index tensors at
// consecutive positions p..p+k-1 (None elsewhere). One index: Gather on
// axis p. Several: broadcast, stacked, GatherND on self with those axes
// moved first; the broadcast dims land at p as ATen puts them. A boolean
// mask over m dims stands for the m index tensors of its nonzero()
// (ATen's own rewrite): the rows of ONNX NonZero, whose length is the
// data-dependent count the program names with an unbacked symbol.
struct IndexArg {
  int64_t pos;  // the dim of self it indexes
  std::string onnx;
  int32_t dtype;
  // Index tensors of one shape need no broadcasting: an integer index's
  // program shape, or the boolean mask whose NonZero row this is.
  const std::vector<Dim>* shape = nullptr;
  const Value* mask = nullptr;
};

bool same_shapes(const std::vector<IndexArg>& idx) {
  const IndexArg& first = idx.front();
  for (const IndexArg& a : idx) {
    const bool same =
        a.mask ? a.mask == first.mask : a.shape && first.shape && same_shape(*a.shape, *first.shape);
    if (!same) return false;
  }
  return true;
}

std::vector<IndexArg> index_tensors(OpContext& cx) {
  if (!cx.has("indices")) cx.unsupported("index without indices");
  const std::vector<const Value*> list = cx.tensor_list("indices");
  std::vector<IndexArg> out;
  int64_t pos = 0;
  for (const Value* v : list) {
    if (!v) {
      ++pos;
      continue;
    }
    const int32_t dt = v->dtype;
    if (dt != onnx::TensorProto::BOOL) {
      out.push_back({pos++, v->onnx, dt, &v->shape, nullptr});
      continue;
    }
    const int64_t m = static_cast<int64_t>(v->shape.size());
    if (m == 0) cx.unsupported("indexing with a 0-d boolean mask");
    const std::string nz = cx.emit1("NonZero", {v->onnx});  // [m, count]
    for (int64_t d = 0; d < m; ++d)
      out.push_back({pos++, cx.emit1("Gather", {nz, cx.ci64s(d)}, {attr("axis", int64_t{0})}),
                     onnx::TensorProto::INT64, nullptr, v});
  }
  if (out.empty()) cx.unsupported("index without an index tensor");
  for (size_t k = 1; k < out.size(); ++k)
    if (out[k].pos != out[k - 1].pos + 1) cx.unsupported("index tensors at non-adjacent positions");
  return out;
}

// Whether the k index tensors broadcast as an outer product: aligned to
// rank k, index j varies along dim j only (every other dim a static 1), as
// `x[..., h[:, None], w]` of an interpolation's core decomposition. Then
// the result is one Gather per indexed dim, each keeping its dim's place.
bool outer_product(const std::vector<IndexArg>& idx) {
  const size_t k = idx.size();
  for (size_t j = 0; j < k; ++j) {
    if (!idx[j].shape || idx[j].shape->size() > k) return false;
    const auto& dims = *idx[j].shape;
    const size_t lead = k - dims.size();  // aligned position of dims[0]
    if (j < lead) return false;
    for (size_t q = lead; q < k; ++q)
      if (q != j && !(dims[q - lead].is_static && dims[q - lead].value == 1)) return false;
  }
  return true;
}

void lower_index(OpContext& cx) {
  const auto idx = index_tensors(cx);
  const int64_t r = cx.rank_of("self"), p = idx.front().pos, k = static_cast<int64_t>(idx.size());
  std::string x = cx.tensor("self");
  if (k == 1) return cx.out(0, cx.emit1("Gather", {x, idx[0].onnx}, {attr("axis", p)}));
  if (outer_product(idx)) {
    for (int64_t j = 0; j < k; ++j) {
      const IndexArg& a = idx[static_cast<size_t>(j)];
      std::string i = cx.cast(a.onnx, a.dtype, onnx::TensorProto::INT64);
      if (a.shape->size() != 1) i = cx.emit1("Reshape", {i, cx.ci64({-1})});
      x = cx.emit1("Gather", {x, i}, {attr("axis", p + j)});
    }
    return cx.out(0, x);
  }
  std::vector<int64_t> perm;
  for (int64_t d = p; d < p + k; ++d) perm.push_back(d);
  for (int64_t d = 0; d < r; ++d)
    if (d < p || d >= p + k) perm.push_back(d);
  if (p != 0) x = cx.transpose(x, perm);
  std::vector<std::string> ids;
  for (const IndexArg& a : idx) ids.push_back(cx.cast(a.onnx, a.dtype, onnx::TensorProto::INT64));
  // The broadcast shape is that of one variadic Max of the indices (its
  // values unused: any element-wise op broadcasts them alike); an index
  // the program states at that shape already is not expanded.
  const bool broadcast = !same_shapes(idx);
  const std::string shape = broadcast ? cx.shape_of(cx.emit1("Max", ids)) : std::string();
  const int64_t nb = cx.out_rank() - (r - k);
  const std::vector<Dim>& out_dims = cx.out_shape();
  const std::vector<Dim> b_dims(out_dims.begin() + p, out_dims.begin() + p + nb);  // at p in the output
  std::vector<std::string> cols;
  for (size_t j = 0; j < ids.size(); ++j) {
    const bool expanded = broadcast && !(idx[j].shape && same_shape(*idx[j].shape, b_dims));
    cols.push_back(cx.unsqueeze(expanded ? cx.emit1("Expand", {ids[j], shape}) : ids[j], {-1}));
  }
  std::string y = cx.emit1("GatherND", {x, cx.emit1("Concat", cols, {attr("axis", int64_t{-1})})});
  if (p != 0) {  // [B..., pre..., post...] -> [pre..., B..., post...]
    const int64_t out_r = cx.out_rank(), nb = out_r - (r - k);
    std::vector<int64_t> back;
    for (int64_t d = nb; d < nb + p; ++d) back.push_back(d);
    for (int64_t d = 0; d < nb; ++d) back.push_back(d);
    for (int64_t d = nb + p; d < out_r; ++d) back.push_back(d);
    y = cx.transpose(y, back);
  }
  cx.out(0, y);
}
MX_ATEN_LOWER(lower_index, "aten.index.Tensor");

void lower_index_select(OpContext& cx) {
  const int64_t dim = norm_dim(cx.int_arg("dim"), cx.rank_of("self"));
  cx.out(0, cx.emit1("Gather", {cx.tensor("self"), cx.tensor("index")}, {attr("axis", dim)}));
}
MX_ATEN_LOWER(lower_index_select, "aten.index_select");

void lower_gather(OpContext& cx) {
  const int64_t dim = norm_dim(cx.int_arg("dim"), cx.rank_of("self"));
  cx.out(0, cx.emit1("GatherElements", {cx.tensor("self"), cx.tensor("index")}, {attr("axis", dim)}));
}
MX_ATEN_LOWER(lower_gather, "aten.gather");

// take_along_dim(self, indices, dim=None): gather along `dim` after self
// and indices are broadcast in every other dim; without a dim, a gather of
// the flattened self by the flattened indices.
void lower_take_along_dim(OpContext& cx) {
  const Value& x = cx.value_of("self");
  const Value& i = cx.value_of("indices");
  std::string idx = cx.cast(i.onnx, i.dtype, onnx::TensorProto::INT64);
  if (!cx.has("dim")) {
    const std::string flat = cx.ci64({-1});
    return cx.out(
        0, cx.emit1("GatherElements", {cx.emit1("Reshape", {x.onnx, flat}), cx.emit1("Reshape", {idx, flat})},
                    {attr("axis", int64_t{0})}));
  }
  if (x.shape.size() != i.shape.size())
    cx.unsupported("take_along_dim with indices of another rank than self");
  const int64_t r = static_cast<int64_t>(x.shape.size()), dim = norm_dim(cx.int_arg("dim"), r);
  bool same = true;
  for (int64_t d = 0; d < r; ++d)
    if (d != dim) same = same && same_dim(x.shape[static_cast<size_t>(d)], i.shape[static_cast<size_t>(d)]);
  std::string xs = x.onnx;
  if (!same) {  // the broadcast shape: both cut to length 1 along dim, expanded together
    auto first = [&](const std::string& t) {
      return cx.emit1("Slice", {t, cx.ci64({0}), cx.ci64({1}), cx.ci64({dim})});
    };
    const std::string b = cx.shape_of(cx.emit1("Expand", {first(xs), cx.shape_of(first(idx))}));
    xs = cx.emit1("Expand", {xs, b});
    idx = cx.emit1("Expand", {idx, b});
  }
  cx.out(0, cx.emit1("GatherElements", {xs, idx}, {attr("axis", dim)}));
}
MX_ATEN_LOWER(lower_take_along_dim, "aten.take_along_dim");

// nonzero(self) -> [count, rank] int64: ONNX NonZero gives [rank, count].
// The count is data-dependent: the program names it with an unbacked
// symbol (u0), which becomes a dynamic dim of the ONNX value.
void lower_nonzero(OpContext& cx) {
  const Value& v = cx.value_of("self");
  std::string x = v.onnx;
  if (v.shape.empty()) x = cx.unsqueeze(x, {0});
  const std::string nz = cx.transpose(cx.emit1("NonZero", {x}), {1, 0});
  cx.out(0, v.shape.empty() ? cx.emit1("Slice", {nz, cx.ci64({0}), cx.ci64({0}), cx.ci64({1})}) : nz);
}
MX_ATEN_LOWER(lower_nonzero, "aten.nonzero");

// nonzero_numpy(self) -> Tensor[] (nonzero(as_tuple=True) at the training
// level; where(condition) is the same): one 1-D index tensor per dim, the rows of ONNX's NonZero.
void lower_nonzero_numpy(OpContext& cx) {
  const Value& v = cx.value_of(cx.has("condition") ? "condition" : "self");
  std::string x = v.onnx;
  if (v.shape.empty()) x = cx.unsqueeze(x, {0});
  const size_t r = std::max<size_t>(v.shape.size(), 1);
  const std::string nz = cx.emit1("NonZero", {x});  // [r, count]
  std::vector<std::string> rows;
  for (size_t d = 0; d < r; ++d)
    rows.push_back(cx.emit1("Gather", {nz, cx.ci64s(static_cast<int64_t>(d))}, {attr("axis", int64_t{0})}));
  cx.out_list(0, rows);
}
MX_ATEN_LOWER(lower_nonzero_numpy, "aten.nonzero_numpy", "aten.where.default");

// take(self, index): self read as 1-D at index (any shape; the result has it).
void lower_take(OpContext& cx) {
  const Value& i = cx.value_of("index");
  cx.out(0, cx.emit1("Gather",
                     {cx.emit1("Reshape", {cx.tensor("self"), cx.ci64({-1})}),
                      cx.cast(i.onnx, i.dtype, onnx::TensorProto::INT64)},
                     {attr("axis", int64_t{0})}));
}
MX_ATEN_LOWER(lower_take, "aten.take");

// nonzero_static(self, size, fill_value=-1) -> [size, rank]: nonzero's
// rows, cut to `size` or padded with fill_value rows. The size may be a
// SymInt (core ATen's combinations of a dynamic length: n (n - 1) / 2).
void lower_nonzero_static(OpContext& cx) {
  const Value& v = cx.value_of("self");
  if (v.shape.empty()) cx.unsupported("nonzero_static of a 0-d tensor");
  const int64_t fill = cx.int_arg("fill_value", -1);
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const std::string size = cx.unsqueeze(cx.sym_int("size"), {0});
  const std::string nz = cx.transpose(cx.emit1("NonZero", {v.onnx}), {1, 0});
  const std::string rows = cx.emit1("Concat", {size, cx.ci64({r})}, {attr("axis", int64_t{0})});
  const std::string padding =
      cx.emit1("Expand", {cx.ci64s(fill), rows});  // at most `size` fill rows are needed
  const std::string all = cx.emit1("Concat", {nz, padding}, {attr("axis", int64_t{0})});
  cx.out(0, cx.emit1("Slice", {all, cx.ci64({0}), size, cx.ci64({0})}));
}
MX_ATEN_LOWER(lower_nonzero_static, "aten.nonzero_static");

// masked_select(self, mask): the elements where the broadcast mask holds,
// flattened in row-major order (Compress without an axis); the count is an
// unbacked symbol of the program, a dynamic dim here.
void lower_masked_select(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt), m = cx.operand("mask", onnx::TensorProto::BOOL);
  const std::string shape = cx.shape_of(cx.emit1("Where", {m, x, x}));  // the broadcast shape
  const std::string flat_x = cx.emit1("Reshape", {cx.emit1("Expand", {x, shape}), cx.ci64({-1})});
  const std::string flat_m = cx.emit1("Reshape", {cx.emit1("Expand", {m, shape}), cx.ci64({-1})});
  cx.out(0, cx.emit1("Compress", {flat_x, flat_m}, {attr("axis", int64_t{0})}));
}
MX_ATEN_LOWER(lower_masked_select, "aten.masked_select");

// _unique2(self, sorted=True, return_inverse=False, return_counts=False)
// -> (values, inverse, counts): ONNX Unique over the flattened input
// (sorted ascending); the inverse takes the input's shape, as in ATen.
void lower_unique(OpContext& cx) {
  const Value& v = cx.value_of("self");
  if (!cx.bool_arg("sorted", true)) cx.unsupported("unique with sorted=False (ATen's order is unspecified)");
  const std::string flat = cx.emit1("Reshape", {v.onnx, cx.ci64({-1})});
  auto u = cx.emit("Unique", {flat}, {attr("sorted", int64_t{1})}, 4);  // Y, first indices, inverse, counts
  cx.out(0, u[0]);
  const size_t n = cx.n_outputs();
  if (n > 1) cx.out(1, cx.emit1("Reshape", {u[2], cx.shape_of(v.onnx)}));
  if (n > 2) cx.out(2, u[3]);
}
MX_ATEN_LOWER(lower_unique, "aten._unique2");

// unique_dim(self, dim, sorted=True, return_inverse=False, return_counts=False)
// -> (values, inverse, counts): ONNX Unique along `axis` (the distinct
// slices in ascending lexicographic order, as ATen sorts them); an output
// not asked for is empty, as in ATen.
void lower_unique_dim(OpContext& cx) {
  const Value& v = cx.value_of("self");
  if (!cx.bool_arg("sorted", true)) cx.unsupported("unique_dim with sorted=False");
  const int64_t dim = norm_dim(cx.int_arg("dim"), static_cast<int64_t>(v.shape.size()));
  auto u = cx.emit("Unique", {v.onnx}, {attr("sorted", int64_t{1}), attr("axis", dim)}, 4);
  cx.out(0, u[0]);
  const size_t n = cx.n_outputs();
  if (n > 1) cx.out(1, cx.bool_arg("return_inverse", false) ? u[2] : cx.ci64({}));
  if (n > 2) cx.out(2, cx.bool_arg("return_counts", false) ? u[3] : cx.ci64({}));
}
MX_ATEN_LOWER(lower_unique_dim, "aten.unique_dim");

// one_hot(self, num_classes=-1): a static class count (-1 would need the
// data's maximum) -> OneHot with values (0, 1) in int64.
void lower_one_hot(OpContext& cx) {
  const int64_t n = cx.int_arg("num_classes", -1);
  if (n < 0) cx.unsupported("one_hot without num_classes (the count would be the data's maximum + 1)");
  const std::string i = cx.cast(cx.tensor("self"), cx.dtype_of("self"), onnx::TensorProto::INT64);
  cx.out(0, cx.cast(cx.emit1("OneHot", {i, cx.ci64s(n), cx.ci64({0, 1})}, {attr("axis", int64_t{-1})}),
                    onnx::TensorProto::INT64, cx.out_dtype()));
}
MX_ATEN_LOWER(lower_one_hot, "aten.one_hot");

}  // namespace
}  // namespace mx::aten_onnx
