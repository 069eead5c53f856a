// Writes by index: scatter (src or value), scatter_add, scatter_reduce ->
// ScatterElements; index_put (one index tensor per leading dim, or a
// boolean mask) -> ScatterND; masked_scatter.
// ScatterElements' reductions (opset 16: add, mul; 18: max, min) include
// the destination's value, as ATen's include_self=True does.
#include "mx/onnx_proto.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <optional>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

// A Scatter node; one that reduces (add, mul, max, min) in half precision
// runs in float32 and is cast back: ONNX Runtime's CPU provider has no
// float16 / bfloat16 kernels for the reductions (one rounding at the end,
// where ATen rounds after each add).
std::string scatter_node(OpContext& cx, const std::string& op, const std::string& data,
                         const std::string& index, const std::string& updates,
                         const std::vector<onnx::AttributeProto>& a, int32_t dt) {
  const bool reduces = std::any_of(a.begin(), a.end(), [](const auto& x) { return x.name() == "reduction"; });
  const bool half = dt == onnx::TensorProto::FLOAT16 || dt == onnx::TensorProto::BFLOAT16;
  if (!reduces || !half) return cx.emit1(op, {data, index, updates}, a);
  const int32_t f = onnx::TensorProto::FLOAT;
  return cx.cast(cx.emit1(op, {cx.cast(data, dt, f), index, cx.cast(updates, dt, f)}, a), f, dt);
}

// Where a ScatterElements writes: along `dim`, at `index` (int64, of the
// source's shape).
struct ScatterSite {
  int64_t dim = 0;
  std::string index;
};

// scatter's own: the node's dim and index.
ScatterSite scatter_site(OpContext& cx) {
  return {norm_dim(cx.int_arg("dim"), std::max<int64_t>(cx.rank_of("self"), 1)),
          cx.cast(cx.tensor("index"), cx.dtype_of("index"), onnx::TensorProto::INT64)};
}

// index_add / index_reduce's: a 1-D index of positions along dim, spread
// over a tensor of `shape` (its length along dim that of the index).
ScatterSite index_site(OpContext& cx, const std::string& shape) {
  const int64_t r = std::max<int64_t>(cx.rank_of("self"), 1);
  const int64_t dim = norm_dim(cx.int_arg("dim"), r);
  const std::string idx = cx.cast(cx.tensor("index"), cx.dtype_of("index"), onnx::TensorProto::INT64);
  std::vector<int64_t> others;
  for (int64_t k = 0; k < r; ++k)
    if (k != dim) others.push_back(k);
  const std::string shaped = others.empty() ? idx : cx.unsqueeze(idx, others);
  return {dim, cx.emit1("Expand", {shaped, shape})};
}

// ScatterElements of `src` into `into` (a tensor of self's shape) at `site`.
std::string scatter_elements_into(OpContext& cx, const ScatterSite& site, const std::string& into,
                                  const std::string& src, const std::string& reduction) {
  std::vector<onnx::AttributeProto> a = {attr("axis", site.dim)};
  if (!reduction.empty()) a.push_back(attr("reduction", reduction));
  return scatter_node(cx, "ScatterElements", into, site.index, src, a, cx.out_dtype());
}

std::string scatter_elements(OpContext& cx, const std::string& src, const std::string& reduction) {
  return scatter_elements_into(cx, scatter_site(cx), cx.operand("self", cx.out_dtype()), src, reduction);
}

// scatter.src / scatter.value (self, dim, index, src|value[, reduce])
void lower_scatter(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  std::string src;
  if (cx.has("src")) src = cx.operand("src", dt);
  else  // a scalar value spread to the index's shape
    src = cx.emit1("Expand", {cx.operand("value", dt), cx.shape_of(cx.tensor("index"))});
  std::string reduction;
  if (cx.has("reduce")) {
    const std::string r = cx.string_arg("reduce", "");
    reduction = r == "add" ? "add" : r == "multiply" ? "mul" : "";
    if (reduction.empty()) cx.unsupported("scatter with reduce='" + r + "'");
  }
  cx.out(0, scatter_elements(cx, src, reduction));
}
MX_ATEN_LOWER(lower_scatter, "aten.scatter", "aten.scatter_");

void lower_scatter_add(OpContext& cx) {
  cx.out(0, scatter_elements(cx, cx.operand("src", cx.out_dtype()), "add"));
}
MX_ATEN_LOWER(lower_scatter_add, "aten.scatter_add", "aten.scatter_add_");

// Positions of self that some index writes to (bool, self's shape).
std::string written_positions(OpContext& cx, const ScatterSite& site) {
  const std::string zeros = cx.emit1("Expand", {cx.ci64s(0), cx.shape_of(cx.tensor("self"))});
  const std::string ones = cx.emit1("Expand", {cx.ci64s(1), cx.shape_of(site.index)});
  return cx.cast(scatter_elements_into(cx, site, zeros, ones, ""), onnx::TensorProto::INT64,
                 onnx::TensorProto::BOOL);
}

// The value a reduction starts from when self takes no part in it.
double reduction_identity(OpContext& cx, const std::string& r, int32_t dt) {
  if (r == "sum" || r == "mean") return 0.0;
  if (r == "prod") return 1.0;
  if (!mx::aten_onnx::is_floating(dt))
    cx.unsupported("'" + r + "' reduction with include_self=False on integers");
  return r == "amax" ? -INFINITY : INFINITY;
}

// scatter_reduce.two(self, dim, index, src, reduce, include_self=True) and
// index_reduce(self, dim, index, source, reduce, include_self=True), whose
// 1-D index is spread over source's shape: sum/prod/mean at opset 16,
// amax/amin from opset 18 (ScatterElements max/min). include_self=False
// starts every written position from the reduction's identity instead of
// self; mean divides the sum by the number of values each position
// reduced (itself included or not).
void lower_scatter_reduce(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const bool by_index = cx.op() == "index_reduce";
  const std::string what = by_index ? "index_reduce" : "scatter_reduce";
  const std::string r = cx.string_arg("reduce", "");
  const bool include_self = cx.bool_arg("include_self", true);
  std::string reduction = (r == "sum" && !by_index) || r == "mean" ? "add"
                          : r == "prod"                            ? "mul"
                          : r == "amax"                            ? "max"
                          : r == "amin"                            ? "min"
                                                                   : "";
  if (reduction.empty()) cx.unsupported(what + " with reduce='" + r + "'");
  if (r == "mean" && !mx::aten_onnx::is_floating(dt)) cx.unsupported(what + " 'mean' on integers");
  if ((reduction == "max" || reduction == "min") && cx.opset < 18)
    cx.unsupported(what + " '" + r + "' needs ONNX opset 18 (ScatterElements max/min)");
  const std::string self = cx.operand("self", dt), src = cx.operand(by_index ? "source" : "src", dt);
  const ScatterSite site = by_index ? index_site(cx, cx.shape_of(src)) : scatter_site(cx);
  std::string base = self;
  if (!include_self)
    base =
        cx.emit1("Where", {written_positions(cx, site), cx.cscalar(reduction_identity(cx, r, dt), dt), self});
  std::string out = scatter_elements_into(cx, site, base, src, reduction);
  if (r == "mean") {
    const std::string start = cx.emit1("Expand", {cx.cscalar(include_self ? 1 : 0, dt), cx.shape_of(self)});
    const std::string ones = cx.emit1("Expand", {cx.cscalar(1, dt), cx.shape_of(site.index)});
    const std::string count = scatter_elements_into(cx, site, start, ones, "add");
    out = cx.emit1("Div", {out, cx.emit1("Max", {count, cx.cscalar(1, dt)})});
  }
  cx.out(0, out);
}
MX_ATEN_LOWER(lower_scatter_reduce, "aten.scatter_reduce", "aten.scatter_reduce_", "aten.index_reduce",
              "aten.index_reduce_");

// The index tensors' broadcast dims [first, first + k), when the program's
// dims decide them: at each position (from the right) every dim is 1 or
// the same size or symbol. nullopt when a dim could be 1 at run time only.
std::optional<std::vector<Dim>> index_dims(const std::vector<const Value*>& idx, int64_t first, int64_t k) {
  size_t rank = 0;
  for (int64_t j = 0; j < k; ++j) rank = std::max(rank, idx[static_cast<size_t>(first + j)]->shape.size());
  std::vector<Dim> out(rank, Dim{true, 1, "", ""});
  for (int64_t j = 0; j < k; ++j) {
    const auto& s = idx[static_cast<size_t>(first + j)]->shape;
    for (size_t d = 0; d < s.size(); ++d) {
      Dim& o = out[rank - s.size() + d];
      const bool one = s[d].is_static && s[d].value == 1;
      if (one) continue;
      if (o.is_static && o.value == 1) o = s[d];
      else if (!same_dim(o, s[d])) return std::nullopt;
    }
  }
  return out;
}

bool all_static(const std::vector<Dim>& dims) {
  return std::all_of(dims.begin(), dims.end(), [](const Dim& d) { return d.is_static; });
}

std::vector<int64_t> sizes(const std::vector<Dim>& dims) {
  std::vector<int64_t> out;
  for (const Dim& d : dims) out.push_back(d.value);
  return out;
}

// index_put's values broadcast to x[indices]'s shape, self[:first] ++ the
// index shape ++ self[first+k:], as ScatterND's updates: as they are when
// the program's dims already are that shape, by a constant shape when they
// are static, else by one read from self and the index in the graph.
std::string values_to_index_shape(OpContext& cx, const Value& self, int64_t first, int64_t k,
                                  const std::optional<std::vector<Dim>>& ishape,
                                  const std::function<std::string()>& idx_shape,
                                  const std::string& values) {
  if (ishape) {
    std::vector<Dim> want(self.shape.begin(), self.shape.begin() + first);
    want.insert(want.end(), ishape->begin(), ishape->end());
    want.insert(want.end(), self.shape.begin() + first + k, self.shape.end());
    const bool tensor = cx.arg_kind("values") == ArgKind::tensor;  // not a Scalar a frontend passed
    if (tensor && same_shape(cx.value_of("values").shape, want)) return values;
    if (all_static(want)) return cx.emit1("Expand", {values, cx.ci64(sizes(want))});
  }
  const std::string self_shape = cx.shape_of(self.onnx);
  const std::string before = cx.emit1("Slice", {self_shape, cx.ci64({0}), cx.ci64({first})});
  const std::string after = cx.emit1("Slice", {self_shape, cx.ci64({first + k}), cx.ci64({INT64_MAX})});
  return cx.emit1("Expand", {values, cx.emit1("Concat", {before, idx_shape(), after}, {attr("axis", int64_t{0})})});
}

// index_put(self, indices, values, accumulate=False): k index tensors
// (broadcast together) on k adjacent dims -> ScatterND at the stacked
// indices of values broadcast to x[indices]'s shape. None entries (dims
// taken whole, as the core dialect's col2im and x[:, idx] = v write) are
// moved behind the indexed dims by a Transpose, and back. A single boolean
// mask of self's shape is a Where.
void lower_index_put(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const Value& self = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(self.shape.size());
  const bool acc = cx.bool_arg("accumulate", false);
  std::vector<const Value*> idx;  // one per leading dim; nullptr = None
  idx = cx.tensor_list("indices");
  std::string values = cx.operand("values", dt);
  if (idx.size() == 1 && idx[0] && idx[0]->dtype == onnx::TensorProto::BOOL &&
      idx[0]->shape.size() == self.shape.size()) {
    if (acc) cx.unsupported("index_put with a boolean mask and accumulate=True");
    const std::string x = cx.cast(self.onnx, self.dtype, dt);
    return cx.out(0, cx.emit1("Where", {idx[0]->onnx, cx.emit1("Expand", {values, cx.shape_of(x)}), x}));
  }
  // the indexed dims: adjacent, [first, first + k)
  int64_t first = -1, k = 0;
  for (size_t d = 0; d < idx.size(); ++d) {
    if (!idx[d]) continue;
    if (idx[d]->dtype == onnx::TensorProto::BOOL)
      cx.unsupported("index_put with a boolean index among others");
    if (first < 0) first = static_cast<int64_t>(d);
    else if (static_cast<int64_t>(d) != first + k)
      cx.unsupported("index_put with index tensors on dims that are not adjacent");
    ++k;
  }
  if (first < 0) cx.unsupported("index_put without an index tensor");
  // Broadcast the index tensors together; negative ones count from the end.
  // Where the program's dims decide the broadcast shapes, no shape is read
  // in the graph and no Expand to a shape a value already has is written
  // (an overlap-add writes one index_put per frame: istft, col2im).
  const auto ishape = index_dims(idx, first, k);
  std::string shape;  // the broadcast index shape, built when an Expand needs it
  const std::function<std::string()> idx_shape = [&] {
    if (!shape.empty()) return shape;
    if (ishape && all_static(*ishape)) return shape = cx.ci64(sizes(*ishape));
    shape = cx.shape_of(idx[first]->onnx);
    for (int64_t j = 1; j < k; ++j)
      shape =
          cx.shape_of(cx.emit1("Add", {cx.emit1("Expand", {idx[first]->onnx, shape}), idx[first + j]->onnx}));
    return shape;
  };
  std::vector<std::string> parts;
  for (int64_t j = 0; j < k; ++j) {
    const Value& v = *idx[first + j];
    std::string i = cx.cast(v.onnx, v.dtype, onnx::TensorProto::INT64);
    const Dim& n = self.shape[static_cast<size_t>(first + j)];
    const std::string size = n.is_static ? cx.ci64s(n.value) : cx.dim_size(self.onnx, first + j);
    i = cx.emit1("Where", {cx.emit1("Less", {i, cx.ci64s(0)}), cx.emit1("Add", {i, size}), i});
    if (!ishape || !same_shape(v.shape, *ishape)) i = cx.emit1("Expand", {i, idx_shape()});
    parts.push_back(cx.emit1("Unsqueeze", {i, cx.ci64({-1})}));
  }
  const std::string nd =
      parts.size() == 1 ? parts[0] : cx.emit1("Concat", parts, {attr("axis", int64_t{-1})});
  values = values_to_index_shape(cx, self, first, k, ishape, idx_shape, values);
  std::string x = cx.cast(self.onnx, self.dtype, dt);
  std::vector<int64_t> perm, inverse(static_cast<size_t>(r));
  if (first > 0) {  // indexed dims first, for ScatterND; values' index dims first too
    for (int64_t d = first; d < first + k; ++d) perm.push_back(d);
    for (int64_t d = 0; d < r; ++d)
      if (d < first || d >= first + k) perm.push_back(d);
    for (int64_t d = 0; d < r; ++d) inverse[static_cast<size_t>(perm[static_cast<size_t>(d)])] = d;
    x = cx.transpose(x, perm);
    const int64_t b = idx[first]->shape.size() > 0 ? static_cast<int64_t>(idx[first]->shape.size()) : 0;
    int64_t br = b;
    for (int64_t j = 1; j < k; ++j)
      br = std::max<int64_t>(br, static_cast<int64_t>(idx[first + j]->shape.size()));
    std::vector<int64_t> vperm;
    const int64_t vr = first + br + (r - first - k);
    for (int64_t d = first; d < first + br; ++d) vperm.push_back(d);
    for (int64_t d = 0; d < vr; ++d)
      if (d < first || d >= first + br) vperm.push_back(d);
    values = cx.transpose(values, vperm);
  }
  std::vector<onnx::AttributeProto> a;
  if (acc) a.push_back(attr("reduction", std::string("add")));
  std::string y = scatter_node(cx, "ScatterND", x, nd, values, a, cx.out_dtype());
  cx.out(0, first > 0 ? cx.transpose(y, inverse) : y);
}
MX_ATEN_LOWER(lower_index_put, "aten.index_put", "aten.index_put_", "aten._index_put_impl_",
              "aten._unsafe_index_put");

// masked_scatter(self, mask, source): the positions where mask is true, in
// row-major order, take source's leading elements in order.
void lower_masked_scatter(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  const std::string shape = cx.shape_of(x);
  const std::string mask = cx.emit1("Expand", {cx.operand("mask", onnx::TensorProto::BOOL), shape});
  const std::string flat_mask = cx.emit1("Reshape", {mask, cx.ci64({-1})});
  // position of each true element among the true ones: cumsum - 1
  const std::string rank = cx.emit1(
      "Sub", {cx.emit1("CumSum",
                       {cx.cast(flat_mask, onnx::TensorProto::BOOL, onnx::TensorProto::INT64), cx.ci64s(0)}),
              cx.ci64s(1)});
  const std::string src = cx.emit1("Reshape", {cx.operand("source", dt), cx.ci64({-1})});
  const std::string safe = cx.emit1("Max", {rank, cx.ci64s(0)});
  const std::string taken = cx.emit1("Gather", {src, safe}, {attr("axis", int64_t{0})});
  const std::string flat = cx.emit1("Where", {flat_mask, taken, cx.emit1("Reshape", {x, cx.ci64({-1})})});
  cx.out(0, cx.emit1("Reshape", {flat, shape}));
}
MX_ATEN_LOWER(lower_masked_scatter, "aten.masked_scatter", "aten.masked_scatter_");

// select_scatter(self, src, dim, index): self with self.select(dim, index)
// replaced by src: self[:index] ++ src.unsqueeze(dim) ++ self[index+1:].
void lower_select_scatter(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t dim = norm_dim(cx.int_arg("dim"), cx.rank_of("self"));
  const int64_t index = cx.int_arg("index");
  const std::string x = cx.operand("self", dt);
  const std::string mid = cx.unsqueeze(cx.operand("src", dt), {dim});
  const int64_t next = index == -1 ? INT64_MAX : index + 1;
  const std::string head = cx.emit1("Slice", {x, cx.ci64({0}), cx.ci64({index}), cx.ci64({dim})});
  const std::string tail = cx.emit1("Slice", {x, cx.ci64({next}), cx.ci64({INT64_MAX}), cx.ci64({dim})});
  cx.out(0, cx.emit1("Concat", {head, mid, tail}, {attr("axis", dim)}));
}
MX_ATEN_LOWER(lower_select_scatter, "aten.select_scatter");

// put(self, index, source, accumulate=False): self as a flat tensor written
// at the flat positions `index` (negative ones count from the end).
void lower_put(OpContext& cx) {
  const int32_t dt = cx.out_dtype(), i64 = onnx::TensorProto::INT64;
  const std::string self = cx.operand("self", dt), flat_shape = cx.ci64({-1});
  const std::string flat = cx.emit1("Reshape", {self, flat_shape});
  std::string idx = cx.emit1("Reshape", {cx.cast(cx.tensor("index"), cx.dtype_of("index"), i64), flat_shape});
  const std::string numel = cx.emit1("Size", {self});
  idx = cx.emit1("Where", {cx.emit1("Less", {idx, cx.ci64s(0)}), cx.emit1("Add", {idx, numel}), idx});
  std::vector<onnx::AttributeProto> a = {attr("axis", int64_t{0})};
  if (cx.bool_arg("accumulate", false)) {
    if (cx.opset < 16)
      cx.unsupported("put with accumulate=True needs ONNX opset 16 (ScatterElements with 'reduction')");
    a.push_back(attr("reduction", std::string("add")));
  }
  const std::string src = cx.emit1("Reshape", {cx.operand("source", dt), flat_shape});
  const std::string written = scatter_node(cx, "ScatterElements", flat, idx, src, a, dt);
  cx.out(0, cx.emit1("Reshape", {written, cx.shape_of(self)}));
}
MX_ATEN_LOWER(lower_put, "aten.put", "aten.put_");

// index_add(self, dim, index, source, alpha=1) / index_copy(self, dim,
// index, source) / index_fill(self, dim, index, value): writes along dim
// at the listed positions -> ScatterElements with the index spread over
// source's shape (index_fill: over self's shape with the positions
// replaced).
void lower_index_write(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t r = std::max<int64_t>(cx.rank_of("self"), 1);
  const int64_t dim = norm_dim(cx.int_arg("dim"), r);
  const std::string x = cx.operand("self", dt);
  auto spread = [&](const std::string& shape) { return index_site(cx, shape).index; };
  const bool fill = cx.target().rfind("aten.index_fill", 0) == 0;
  std::string src;
  std::string where;
  if (fill) {
    // the slices at the positions, of self's shape but n long along dim
    const std::string shape = cx.shape_of(x);
    const std::string n = cx.shape_of(cx.tensor("index"));
    const std::string sliced =
        cx.emit1("Concat",
                 {cx.emit1("Slice", {shape, cx.ci64({0}), cx.ci64({dim})}), n,
                  cx.emit1("Slice", {shape, cx.ci64({dim + 1}), cx.ci64({INT64_MAX})})},
                 {attr("axis", int64_t{0})});
    where = spread(sliced);
    src = cx.emit1("Expand", {cx.operand("value", dt), sliced});
  } else {
    src = cx.operand("source", dt);
    if (cx.has("alpha") && cx.float_arg("alpha") != 1.0)
      src = cx.emit1("Mul", {src, cx.operand("alpha", dt)});
    where = spread(cx.shape_of(src));
  }
  std::vector<onnx::AttributeProto> a = {attr("axis", dim)};
  if (cx.target().rfind("aten.index_add", 0) == 0) a.push_back(attr("reduction", std::string("add")));
  cx.out(0, scatter_node(cx, "ScatterElements", x, where, src, a, dt));
}
MX_ATEN_LOWER(lower_index_write, "aten.index_add", "aten.index_add_", "aten.index_copy", "aten.index_copy_",
              "aten.index_fill", "aten.index_fill_");

}  // namespace
}  // namespace mx::aten_onnx
