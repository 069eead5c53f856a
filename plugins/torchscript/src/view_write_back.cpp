// In-place writes through views: `x[:, 0] = y`, `x[..., :n].masked_fill_(..)`,
// `x.view(..).add_(..)`. The walker rebinds the mutated view to the new
// value; here the base it was taken from is rebuilt (slice/select via
// ScatterElements, reshaping views via Reshape, transposes via the inverse
// permutation, aliases directly) and rebound, recursively up the view chain.
#include <climits>

#include "complex_values.hpp"
#include "view_write_back.hpp"

namespace mx::torchscript {

bool is_view_op(const std::string& k) {
  static const std::set<std::string> views = {
      "aten::slice",     "aten::select",  "aten::view",    "aten::reshape",    "aten::_reshape_alias",
      "aten::unsqueeze", "aten::squeeze", "aten::flatten", "aten::view_as",    "aten::reshape_as",
      "aten::transpose", "aten::permute", "aten::t",       "aten::contiguous", "aten::detach",
      "aten::alias",     "aten::narrow",  "aten::expand",  "aten::expand_as",  "aten::unflatten"};
  return views.count(k) > 0;
}

namespace {
std::string bound1(Ctx& cx, const VP& v, int64_t dflt) {
  if (v->iv.isNone()) return cx.ci64({dflt});
  if (v->is_static && v->iv.isInt()) return cx.ci64({v->iv.toInt()});
  return cx.unsqueeze(cx.scalar_i64(v), {0});
}
}  // namespace

void write_back_view(Ctx& cx, const VP& old_val, const VP& new_val) {
  const tj::Node* vn = old_val->view_of;
  if (!vn) return;
  const tj::Value* basev = vn->input(0);
  auto it = cx.frame->env.find(basev);
  if (it == cx.frame->env.end()) return;  // base lives in a caller's frame (README: limitation)
  VP base = it->second;
  if (!base->iv.isTensor()) return;
  std::string k = vn->kind().toQualString();
  auto arg = [&](size_t i) { return cx.get(vn->input(i)); };
  std::string b = cx.tensor(base), nv = cx.tensor(new_val);
  auto bt = base->iv.toTensor();
  int64_t r = bt.dim();
  auto dt = bt.scalar_type();
  nv = cx.cast(nv, cx.onnx_type(new_val), onnx_type_of(dt));
  // a complex base is carried as real pairs (complex_values.hpp): index
  // shapes and permutations gain the trailing pair axis
  const int64_t pair = is_complex_onnx(onnx_type_of(dt)) ? 1 : 0;
  std::string nb;
  auto ival = [&](size_t i) -> int64_t {
    VP v = arg(i);
    if (!v->is_static || !v->iv.isInt()) cx.unsupported("in-place write through a view with a dynamic dim");
    return v->iv.toInt();
  };
  if (k == "aten::contiguous" || k == "aten::detach" || k == "aten::alias") {
    nb = nv;
  } else if (k == "aten::view" || k == "aten::reshape" || k == "aten::_reshape_alias" ||
             k == "aten::unsqueeze" || k == "aten::squeeze" || k == "aten::flatten" || k == "aten::view_as" ||
             k == "aten::reshape_as" || k == "aten::unflatten") {
    nb = cx.emit1("Reshape", {nv, cx.shape_of(b)});
  } else if (k == "aten::transpose" || k == "aten::t" || k == "aten::permute") {
    std::vector<int64_t> p;
    for (int64_t d = 0; d < r; ++d) p.push_back(d);
    if (k == "aten::permute") {
      auto v = arg(1)->iv.toIntVector();
      for (int64_t d = 0; d < r; ++d) p[d] = norm_dim(v[d], r);
    } else if (r >= 2) {
      int64_t a = k == "aten::t" ? 0 : norm_dim(ival(1), r), c = k == "aten::t" ? 1 : norm_dim(ival(2), r);
      std::swap(p[a], p[c]);
    }
    std::vector<int64_t> q(r);
    for (int64_t d = 0; d < r; ++d) q[p[d]] = d;
    if (pair) q.push_back(r);
    nb = r >= 2 ? cx.transpose(nv, q) : nv;
  } else if (k == "aten::slice" || k == "aten::narrow") {
    int64_t dim = norm_dim(ival(1), r);
    std::string st, en, sp = cx.ci64({1});
    bool full = false;
    if (k == "aten::slice") {
      VP s = arg(2), e = arg(3);
      int64_t step = vn->inputs().size() > 4 ? ival(4) : 1;
      full = step == 1 && (s->iv.isNone() || (s->is_static && s->iv.isInt() && s->iv.toInt() == 0)) &&
             (e->iv.isNone() || (e->is_static && e->iv.isInt() && e->iv.toInt() >= INT32_MAX));
      st = bound1(cx, s, 0);
      en = bound1(cx, e, INT64_MAX);
      sp = cx.ci64({step});
    } else {
      st = bound1(cx, arg(2), 0);
      en = cx.emit1("Add", {st, bound1(cx, arg(3), 0)});
    }
    if (full) {
      nb = nv;
    } else {
      std::string rng = cx.emit1("Range", {cx.ci64s(0), cx.dim_size(b, dim), cx.ci64s(1)});
      std::string idx = cx.emit1("Slice", {rng, st, en, cx.ci64({0}), sp});
      std::vector<int64_t> shp(r + pair, 1);
      shp[dim] = -1;
      idx = cx.emit1("Expand", {cx.emit1("Reshape", {idx, cx.ci64(shp)}), cx.shape_of(nv)});
      nb = cx.emit1("ScatterElements", {b, idx, nv}, {attr("axis", dim)});
    }
  } else if (k == "aten::select") {
    int64_t dim = norm_dim(ival(1), r);
    std::string u = cx.unsqueeze(nv, {dim});
    std::vector<int64_t> ones(r + pair, 1);
    std::string idx = cx.emit1("Reshape", {cx.scalar_i64(arg(2)), cx.ci64(ones)});
    idx = cx.emit1("Expand", {idx, cx.shape_of(u)});
    nb = cx.emit1("ScatterElements", {b, idx, u}, {attr("axis", dim)});
  } else {
    cx.unsupported("in-place write through a view made by " + k);
  }
  auto v = std::make_shared<Val>(*base);
  v->name = nb;
  v->onnx_type = onnx_type_of(dt);
  v->is_static = false;
  cx.bind(basev, v);
  write_back_view(cx, base, v);
}

}  // namespace mx::torchscript
