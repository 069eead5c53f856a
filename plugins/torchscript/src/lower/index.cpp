// Indexing: gather/scatter (and scatter_add/_reduce), index (advanced
// indexing), index_put.
#include <climits>

#include "ctx.h"
#include "list_values.h"

namespace mxts {
namespace {

void lower_gather(Ctx& cx, const tj::Node*) {  // gather(self, dim, index)
  int64_t dim = norm_dim(cx.arg_int(1), cx.rank(0));
  cx.out(0, cx.emit1("GatherElements", {cx.tensor(0), cx.tensor_as(2, at::kLong)}, {attr("axis", dim)}));
}
MXTS_LOWER(lower_gather, "aten::gather");

void lower_scatter(Ctx& cx, const tj::Node* n) {
  // scatter(self, dim, index, src|value[, reduce]); scatter_add(self, dim, index, src)
  std::string k = n->kind().toQualString();
  auto dt = cx.out_st();
  int64_t dim = norm_dim(cx.arg_int(1), cx.rank(0));
  std::string idx = cx.tensor_as(2, at::kLong);
  std::string src = cx.tensor_as(3, dt);
  if (!cx.in(3)->iv.isTensor() || cx.ex_t(3).dim() == 0) src = cx.emit1("Expand", {src, cx.shape_of(idx)});
  std::string red = "none";
  if (k.find("scatter_add") != std::string::npos) red = "add";
  else if (k.find("scatter_reduce") != std::string::npos || (cx.n_in() > 4 && cx.in(4)->iv.isString())) {
    std::string r = cx.arg_string(4);
    red = r == "sum" || r == "add" ? "add" : r == "prod" || r == "multiply" ? "mul" : r == "amax" ? "max"
          : r == "amin" ? "min" : "?";
    if (red == "?") cx.unsupported("scatter reduce '" + r + "'");
    if (cx.n_in() > 5 && !cx.arg_bool(5)) cx.unsupported("scatter_reduce with include_self=False");
  }
  std::vector<onnx::AttributeProto> a = {attr("axis", dim)};
  if (red != "none") {
    if (cx.opset < 16 || ((red == "max" || red == "min") && cx.opset < 18))
      cx.unsupported("scatter with reduction '" + red + "' needs a newer opset");
    a.push_back(attr("reduction", red));
  }
  cx.out(0, cx.emit1("ScatterElements", {cx.tensor_as(0, dt), idx, src}, a));
}
MXTS_LOWER(lower_scatter, "aten::scatter", "aten::scatter_", "aten::scatter_add", "aten::scatter_add_",
           "aten::scatter_reduce", "aten::scatter_reduce_");

// aten::index(self, Tensor?[] indices): advanced indexing with integer
// index tensors (bool masks are data-dependent shapes, unsupported).
void lower_index(Ctx& cx, const tj::Node*) {
  auto el = elems_of(cx, cx.in(1));
  int64_t r = cx.rank(0);
  std::vector<int64_t> dims;
  std::vector<VP> idx;
  for (size_t k = 0; k < el.size(); ++k) {
    const auto& e = el[k];
    if (e->iv.isNone()) continue;
    auto t = e->iv.toTensor();
    if (t.scalar_type() == at::kBool || t.scalar_type() == at::kByte)
      cx.unsupported("indexing with a boolean mask (data-dependent output shape)");
    dims.push_back(static_cast<int64_t>(k));
    idx.push_back(e);
  }
  std::string x = cx.tensor(0);
  if (idx.empty()) { cx.same(0, cx.in(0)); return; }
  if (idx.size() == 1) {
    cx.out(0, cx.emit1("Gather", {x, cx.tensor_as(idx[0], at::kLong)}, {attr("axis", dims[0])}));
    return;
  }
  // several index tensors: move indexed dims to the front, broadcast the
  // indices, GatherND; adjacent indexed dims keep their place (ATen rule)
  bool adjacent = true;
  for (size_t k = 1; k < dims.size(); ++k) adjacent &= dims[k] == dims[k - 1] + 1;
  std::vector<int64_t> perm = dims, rest;
  for (int64_t d = 0; d < r; ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) { perm.push_back(d); rest.push_back(d); }
  std::string xt = cx.transpose(x, perm);
  std::vector<int64_t> bshape = at::infer_size(idx[0]->iv.toTensor().sizes(), idx[1]->iv.toTensor().sizes());
  for (size_t k = 2; k < idx.size(); ++k) bshape = at::infer_size(bshape, idx[k]->iv.toTensor().sizes());
  int64_t br = static_cast<int64_t>(bshape.size());
  // broadcast shape at run time: Shape of the sum of the (zeroed) indices
  std::vector<std::string> its;
  for (auto& e : idx) its.push_back(cx.tensor_as(e, at::kLong));
  std::string acc = its[0];
  for (size_t k = 1; k < its.size(); ++k) acc = cx.emit1("Add", {acc, its[k]});
  std::string bs = cx.shape_of(acc);
  std::vector<std::string> parts;
  for (auto& it : its) parts.push_back(cx.unsqueeze(cx.emit1("Expand", {it, bs}), {br}));
  std::string stacked = cx.emit1("Concat", parts, {attr("axis", br)});
  std::string g = cx.emit1("GatherND", {xt, stacked});
  if (adjacent && dims[0] > 0) {
    // result dims: [b..., rest...] -> rest[:p] + b + rest[p:]
    int64_t p = dims[0];
    std::vector<int64_t> q;
    for (int64_t k = 0; k < p; ++k) q.push_back(br + k);
    for (int64_t k = 0; k < br; ++k) q.push_back(k);
    for (int64_t k = p; k < static_cast<int64_t>(rest.size()); ++k) q.push_back(br + k);
    g = cx.transpose(g, q);
  }
  cx.out(0, g);
}
MXTS_LOWER(lower_index, "aten::index");

// index_put(self, indices, values, accumulate): boolean mask -> Where;
// one integer index on a leading dim -> ScatterND.
void lower_index_put(Ctx& cx, const tj::Node*) {
  auto el = elems_of(cx, cx.in(1));
  auto dt = cx.out_st();
  bool acc = cx.n_in() > 3 && cx.arg_bool(3);
  std::vector<size_t> present;
  for (size_t k = 0; k < el.size(); ++k) if (!el[k]->iv.isNone()) present.push_back(k);
  if (present.size() != 1) cx.unsupported("index_put with several index tensors");
  size_t pos = present[0];
  VP ix = el[pos];
  auto it = ix->iv.toTensor();
  std::string x = cx.tensor_as(0, dt), v = cx.tensor_as(2, dt);
  int64_t r = cx.rank(0);
  if (it.scalar_type() == at::kBool) {
    if (pos != 0) cx.unsupported("index_put with a boolean mask after other dims");
    if (cx.ex_t(2).numel() != 1) cx.unsupported("index_put with a boolean mask and several values (masked_scatter)");
    std::string m = cx.tensor(ix);
    std::vector<int64_t> axes;
    for (int64_t k = it.dim(); k < r; ++k) axes.push_back(k);
    if (!axes.empty()) m = cx.unsqueeze(m, axes);
    std::string vv = cx.emit1("Reshape", {v, cx.ci64({})});
    cx.out(0, acc ? cx.emit1("Add", {x, cx.emit1("Where", {m, vv, cx.cscalar(0, dt)})})
                  : cx.emit1("Where", {m, vv, x}));
    return;
  }
  if (pos != 0) cx.unsupported("index_put with an integer index on a non-leading dim");
  // ScatterND: indices [..., 1], updates of shape idx.shape + x.shape[1:]
  std::string idx = cx.unsqueeze(cx.tensor_as(ix, at::kLong), {it.dim()});
  // negative indices: wrap by the dim size
  std::string n0 = cx.dim_size(x, 0);
  idx = cx.emit1("Where", {cx.emit1("Less", {idx, cx.ci64s(0)}), cx.emit1("Add", {idx, n0}), idx});
  std::string ushape = cx.emit1("Concat", {cx.shape_of(cx.tensor_as(ix, at::kLong)),
                                           cx.emit1("Slice", {cx.shape_of(x), cx.ci64({1}), cx.ci64({INT64_MAX})})},
                                {attr("axis", int64_t{0})});
  std::string upd = cx.emit1("Expand", {v, ushape});
  std::vector<onnx::AttributeProto> a;
  if (acc) {
    if (cx.opset < 16) cx.unsupported("index_put with accumulate=True needs opset 16");
    a.push_back(attr("reduction", std::string("add")));
  }
  cx.out(0, cx.emit1("ScatterND", {x, idx, upd}, a));
}
MXTS_LOWER(lower_index_put, "aten::index_put", "aten::index_put_", "aten::_index_put_impl_");

}  // namespace
}  // namespace mxts
