// Indexing and data movement: gather/scatter, index/index_put (advanced
// indexing), cumsum, tril/triu, topk/sort/argsort, flip, roll, fill_/zero_/
// copy_, empty*, unflatten, movedim, pixel_shuffle, tile/broadcast_to.
#include <climits>

#include "lower/common.h"

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
  auto dt = cx.out_dtype();
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
  auto dt = cx.out_dtype();
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

void lower_cumsum(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_dtype();
  int64_t dim = norm_dim(cx.arg_int(1), std::max<int64_t>(1, cx.rank(0)));
  cx.out(0, cx.emit1("CumSum", {cx.tensor_as(0, dt), cx.ci64s(dim)}));
}
MXTS_LOWER(lower_cumsum, "aten::cumsum", "aten::cumsum_");

void lower_trilu(Ctx& cx, const tj::Node* n) {
  bool upper = std::string(n->kind().toQualString()).find("triu") != std::string::npos;
  int64_t k = cx.n_in() > 1 ? cx.arg_int(1) : 0;
  auto dt = cx.out_dtype();
  std::string x = cx.tensor(0);
  bool via_i64 = !(dt == at::kFloat || dt == at::kDouble || dt == at::kLong);
  if (via_i64) x = cx.cast_to(x, onnx_type_of(dt), at::kLong);
  std::string y = cx.emit1("Trilu", {x, cx.ci64s(k)}, {attr("upper", static_cast<int64_t>(upper))});
  if (via_i64) y = cx.cast(y, onnx::TensorProto::INT64, onnx_type_of(dt));
  cx.out(0, y);
}
MXTS_LOWER(lower_trilu, "aten::tril", "aten::triu", "aten::tril_", "aten::triu_");

void lower_topk(Ctx& cx, const tj::Node*) {
  // topk(self, k, dim=-1, largest=True, sorted=True) -> (values, indices)
  int64_t dim = norm_dim(cx.n_in() > 2 ? cx.arg_int(2) : -1, cx.rank(0));
  bool largest = cx.n_in() > 3 ? cx.arg_bool(3) : true;
  std::string kk = cx.unsqueeze(cx.scalar_i64(cx.in(1)), {0});
  auto o = cx.emit("TopK", {cx.tensor(0), kk},
                   {attr("axis", dim), attr("largest", static_cast<int64_t>(largest)), attr("sorted", int64_t{1})}, 2);
  cx.out(0, o[0]);
  cx.out(1, o[1]);
}
MXTS_LOWER(lower_topk, "aten::topk");

void lower_sort(Ctx& cx, const tj::Node* n) {
  // sort(self, dim=-1, descending=False) / sort(self, stable, dim, descending) / argsort
  std::string k = n->kind().toQualString();
  const auto& args = n->schema().arguments();
  int64_t dim = -1;
  bool desc = false;
  for (size_t a = 1; a < args.size() && a < cx.n_in(); ++a) {
    if (args[a].name() == "dim") dim = cx.arg_int(a);
    else if (args[a].name() == "descending") desc = cx.arg_bool(a);
  }
  dim = norm_dim(dim, cx.rank(0));
  std::string x = cx.tensor(0);
  std::string kk = cx.unsqueeze(cx.dim_size(x, dim), {0});
  auto o = cx.emit("TopK", {x, kk},
                   {attr("axis", dim), attr("largest", static_cast<int64_t>(desc)), attr("sorted", int64_t{1})}, 2);
  if (k == "aten::argsort") { cx.out(0, o[1]); return; }
  cx.out(0, o[0]);
  cx.out(1, o[1]);
}
MXTS_LOWER(lower_sort, "aten::sort", "aten::argsort");

void lower_flip(Ctx& cx, const tj::Node*) {
  auto dims = cx.arg_int_list(1);
  int64_t r = cx.rank(0);
  std::vector<int64_t> st, en, ax, sp;
  for (auto d : dims) {
    ax.push_back(norm_dim(d, r));
    st.push_back(-1);
    en.push_back(INT64_MIN);
    sp.push_back(-1);
  }
  cx.out(0, cx.emit1("Slice", {cx.tensor(0), cx.ci64(st), cx.ci64(en), cx.ci64(ax), cx.ci64(sp)}));
}
MXTS_LOWER(lower_flip, "aten::flip");

void lower_roll(Ctx& cx, const tj::Node*) {
  // roll(x, shifts, dims): out = cat(x[n-s:], x[:n-s]) per dim (|shift| < n)
  auto shifts = cx.arg_int_list(1), dims = cx.arg_int_list(2);
  if (dims.empty()) cx.unsupported("roll without dims");
  int64_t r = cx.rank(0);
  auto ex = cx.ex_t(0);
  std::string x = cx.tensor(0);
  for (size_t j = 0; j < dims.size(); ++j) {
    int64_t d = norm_dim(dims[j], r);
    int64_t n = ex.size(d);
    int64_t s = n ? ((shifts[j] % n) + n) % n : 0;
    if (s == 0) continue;
    // split point n - s counted from the end: -s
    std::string a = cx.emit1("Slice", {x, cx.ci64({-s}), cx.ci64({INT64_MAX}), cx.ci64({d})});
    std::string b = cx.emit1("Slice", {x, cx.ci64({0}), cx.ci64({-s}), cx.ci64({d})});
    x = cx.emit1("Concat", {a, b}, {attr("axis", d)});
  }
  cx.out(0, x);
}
MXTS_LOWER(lower_roll, "aten::roll");

std::string fill_like(Ctx& cx, const std::string& like, size_t vidx, at::ScalarType dt) {
  return cx.emit1("Expand", {cx.emit1("Reshape", {cx.tensor_as(vidx, dt), cx.ci64({})}), cx.shape_of(like)});
}

void lower_fill(Ctx& cx, const tj::Node*) {  // fill_(self, value)
  cx.out(0, fill_like(cx, cx.tensor(0), 1, cx.out_dtype()));
}
MXTS_LOWER(lower_fill, "aten::fill_", "aten::fill");

void lower_zero(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_dtype();
  cx.out(0, cx.emit1("Expand", {cx.cscalar(0, dt), cx.shape_of(cx.tensor(0))}));
}
MXTS_LOWER(lower_zero, "aten::zero_");

void lower_copy(Ctx& cx, const tj::Node*) {  // copy_(self, src): src broadcast to self, self's dtype
  auto dt = cx.out_dtype();
  cx.out(0, cx.emit1("Expand", {cx.tensor_as(1, dt), cx.shape_of(cx.tensor(0))}));
}
MXTS_LOWER(lower_copy, "aten::copy_");

void lower_empty(Ctx& cx, const tj::Node* n) {  // uninitialised memory: zeros
  std::string k = n->kind().toUnqualString();
  auto dt = cx.out_dtype();
  std::string shape = k == "empty_like" ? cx.shape_of(cx.tensor(0)) : cx.shape_list(k == "new_empty" ? 1 : 0);
  cx.out(0, cx.emit1("ConstantOfShape", {shape},
                     {attr("value", to_tensor_proto(at::zeros({1}, at::TensorOptions().dtype(dt)), ""))}));
}
MXTS_LOWER(lower_empty, "aten::empty", "aten::empty_like", "aten::new_empty");

void lower_unflatten(Ctx& cx, const tj::Node*) {  // unflatten(self, dim, sizes)
  int64_t r = cx.rank(0);
  int64_t d = norm_dim(cx.arg_int(1), r);
  std::string x = cx.tensor(0);
  std::string shp = cx.shape_of(x);
  std::vector<std::string> parts;
  if (d > 0) parts.push_back(cx.emit1("Slice", {shp, cx.ci64({0}), cx.ci64({d})}));
  parts.push_back(cx.shape_list(2));
  if (d < r - 1) parts.push_back(cx.emit1("Slice", {shp, cx.ci64({d + 1}), cx.ci64({r})}));
  std::string target = parts.size() == 1 ? parts[0] : cx.emit1("Concat", parts, {attr("axis", int64_t{0})});
  cx.out(0, cx.emit1("Reshape", {x, target}));
}
MXTS_LOWER(lower_unflatten, "aten::unflatten");

void lower_movedim(Ctx& cx, const tj::Node*) {
  int64_t r = cx.rank(0);
  auto src = cx.arg_int_list(1), dst = cx.arg_int_list(2);
  std::vector<int64_t> perm(r, -1);
  std::vector<bool> used(r, false);
  for (size_t k = 0; k < src.size(); ++k) {
    perm[norm_dim(dst[k], r)] = norm_dim(src[k], r);
    used[norm_dim(src[k], r)] = true;
  }
  int64_t next = 0;
  for (auto& p : perm) {
    if (p >= 0) continue;
    while (used[next]) ++next;
    p = next++;
  }
  cx.out(0, cx.transpose(cx.tensor(0), perm));
}
MXTS_LOWER(lower_movedim, "aten::movedim", "aten::moveaxis");

void lower_pixel_shuffle(Ctx& cx, const tj::Node*) {
  if (cx.rank(0) != 4) cx.unsupported("pixel_shuffle on non 4-D input");
  cx.out(0, cx.emit1("DepthToSpace", {cx.tensor(0)}, {attr("blocksize", cx.arg_int(1)), attr("mode", std::string("CRD"))}));
}
MXTS_LOWER(lower_pixel_shuffle, "aten::pixel_shuffle");

void lower_broadcast_to(Ctx& cx, const tj::Node*) {
  VP sz = cx.in(1);
  std::string s = cx.shape_list(sz);
  std::string shape = cx.emit1("Where", {cx.emit1("Equal", {s, cx.ci64s(-1)}), cx.ci64s(1), s});
  cx.out(0, cx.emit1("Expand", {cx.tensor(0), shape}));
}
MXTS_LOWER(lower_broadcast_to, "aten::broadcast_to");

void lower_tile(Ctx& cx, const tj::Node*) {
  std::string x = cx.tensor(0);
  int64_t r = cx.rank(0);
  auto reps = cx.arg_int_list(1);
  int64_t n = static_cast<int64_t>(reps.size());
  if (n > r) {
    std::vector<int64_t> axes;
    for (int64_t k = 0; k < n - r; ++k) axes.push_back(k);
    x = cx.unsqueeze(x, axes);
  } else if (n < r) {
    reps.insert(reps.begin(), r - n, 1);
  }
  cx.out(0, cx.emit1("Tile", {x, cx.ci64(reps)}));
}
MXTS_LOWER(lower_tile, "aten::tile");

}  // namespace
}  // namespace mxts

namespace mxts {
namespace {

void lower_meshgrid(Ctx& cx, const tj::Node*) {
  // meshgrid(tensors, indexing="ij"|"xy"); "xy" swaps the roles of the first two
  auto el = elems_of(cx, cx.in(0));
  std::string indexing = cx.n_in() > 1 ? cx.arg_string(1) : "ij";
  size_t n = el.size();
  std::vector<size_t> pos(n);
  for (size_t k = 0; k < n; ++k) pos[k] = k;
  if (indexing == "xy" && n >= 2) std::swap(pos[0], pos[1]);
  std::vector<std::string> flat(n), shape_parts(n);
  for (size_t k = 0; k < n; ++k) {
    flat[k] = cx.emit1("Reshape", {cx.tensor(el[k]), cx.ci64({-1})});
  }
  for (size_t k = 0; k < n; ++k) shape_parts[pos[k]] = cx.shape_of(flat[k]);
  std::string full = cx.emit1("Concat", shape_parts, {attr("axis", int64_t{0})});
  const auto& outs = cx.ex_out[0].toListRef();
  auto list = std::make_shared<Val>();
  list->iv = cx.ex_out[0];
  list->has_elems = true;
  for (size_t k = 0; k < n; ++k) {
    std::vector<int64_t> shp(n, 1);
    shp[pos[k]] = -1;
    auto e = std::make_shared<Val>();
    e->iv = outs[k];
    e->name = cx.emit1("Expand", {cx.emit1("Reshape", {flat[k], cx.ci64(shp)}), full});
    e->onnx_type = onnx_type_of(outs[k].toTensor().scalar_type());
    list->elems.push_back(e);
  }
  cx.out_val(0, list);
}
MXTS_LOWER(lower_meshgrid, "aten::meshgrid");

void lower_weight_norm(Ctx& cx, const tj::Node*) {
  // _weight_norm(v, g, dim) = v * g / ||v|| over every dim but `dim` (all dims when dim == -1)
  auto dt = cx.out_dtype();
  int64_t r = cx.rank(0), dim = cx.arg_int(2);
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < r; ++d) if (dim == -1 || d != norm_dim(dim, r)) axes.push_back(d);
  std::string v = cx.tensor_as(0, dt);
  std::string nrm = cx.emit1("ReduceL2", {v}, {attr("axes", axes), attr("keepdims", int64_t{1})});
  cx.out(0, cx.emit1("Mul", {v, cx.emit1("Div", {cx.tensor_as(1, dt), nrm})}));
}
MXTS_LOWER(lower_weight_norm, "aten::_weight_norm");

}  // namespace
}  // namespace mxts
