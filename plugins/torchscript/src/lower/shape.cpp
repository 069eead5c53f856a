// Shape manipulation: view/reshape/flatten, permute/transpose, (un)squeeze,
// expand, repeat, slice/select/narrow/index_select, split family, cat/stack.
// Sizes given as (possibly dynamic) int lists become 1-D int64 tensors.
#include <climits>

#include "list_values.hpp"

namespace mx::torchscript {
namespace {

void lower_reshape(Ctx& cx, const tj::Node*) {
  cx.out(0, cx.emit1("Reshape", {cx.tensor(0), cx.shape_list(1)}));
}
MXTS_LOWER(lower_reshape, "aten::view", "aten::reshape", "aten::_reshape_alias", "aten::_unsafe_view");

void lower_reshape_as(Ctx& cx, const tj::Node*) {
  cx.out(0, cx.emit1("Reshape", {cx.tensor(0), cx.shape_of(cx.tensor(1))}));
}
MXTS_LOWER(lower_reshape_as, "aten::view_as", "aten::reshape_as");

void lower_flatten(Ctx& cx, const tj::Node*) {
  int64_t r = cx.rank(0);
  int64_t s = cx.n_in() > 1 ? norm_dim(cx.arg_int(1), r) : 0,
          e = cx.n_in() > 2 ? norm_dim(cx.arg_int(2), r) : r - 1;
  std::string x = cx.tensor(0);
  if (r == 0) {
    cx.out(0, cx.emit1("Reshape", {x, cx.ci64({1})}));
    return;
  }
  if (s >= e) {
    cx.same(0, cx.in(0));
    return;
  }
  if (e == r - 1) {  // [0]*s + [-1]: leading dims copied, rest flattened
    std::vector<int64_t> target(s, 0);
    target.push_back(-1);
    cx.out(0, cx.emit1("Reshape", {x, cx.ci64(target)}));
    return;
  }
  std::vector<std::string> parts;
  std::string shp = cx.shape_of(x);
  if (s > 0) parts.push_back(cx.emit1("Slice", {shp, cx.ci64({0}), cx.ci64({s})}));
  parts.push_back(cx.ci64({-1}));
  if (e < r - 1) parts.push_back(cx.emit1("Slice", {shp, cx.ci64({e + 1}), cx.ci64({r})}));
  std::string target = parts.size() == 1 ? parts[0] : cx.emit1("Concat", parts, {attr("axis", int64_t{0})});
  cx.out(0, cx.emit1("Reshape", {x, target}));
}
MXTS_LOWER(lower_flatten, "aten::flatten");

void lower_permute(Ctx& cx, const tj::Node*) {
  auto p = cx.arg_int_list(1);
  for (auto& d : p) d = norm_dim(d, cx.rank(0));
  cx.out(0, cx.transpose(cx.tensor(0), p));
}
MXTS_LOWER(lower_permute, "aten::permute");

void lower_transpose(Ctx& cx, const tj::Node* n) {
  int64_t r = cx.rank(0);
  std::string k = n->kind().toQualString();
  int64_t a = r - 2, b = r - 1;
  if (k != "aten::t") {
    a = norm_dim(cx.arg_int(1), r);
    b = norm_dim(cx.arg_int(2), r);
  }
  if (r < 2 || a == b) {
    cx.same(0, cx.in(0));
    return;
  }
  std::vector<int64_t> p;
  for (int64_t k2 = 0; k2 < r; ++k2) p.push_back(k2);
  std::swap(p[a], p[b]);
  cx.out(0, cx.transpose(cx.tensor(0), p));
}
MXTS_LOWER(lower_transpose, "aten::transpose", "aten::t", "aten::swapaxes");

void lower_unsqueeze(Ctx& cx, const tj::Node*) {
  cx.out(0, cx.unsqueeze(cx.tensor(0), {norm_dim(cx.arg_int(1), cx.rank(0) + 1)}));
}
MXTS_LOWER(lower_unsqueeze, "aten::unsqueeze", "aten::unsqueeze_");

void lower_squeeze(Ctx& cx, const tj::Node*) {
  auto ex = cx.ex_t(0);
  std::vector<int64_t> axes;
  if (cx.n_in() == 1) {  // squeeze(): ONNX Squeeze without axes drops every size-1 dim at run time
    bool any = false;
    for (int64_t d = 0; d < ex.dim(); ++d) any |= ex.size(d) == 1;
    if (!any && ex.dim() > 0) {
      cx.same(0, cx.in(0));
      return;
    }
    cx.out(0, cx.emit1("Squeeze", {cx.tensor(0)}));
    return;
  } else {
    for (auto d : cx.arg_int_list(1)) {
      d = norm_dim(d, ex.dim());
      if (ex.dim() > 0 && ex.size(d) == 1) axes.push_back(d);
    }
  }
  if (axes.empty()) {
    cx.same(0, cx.in(0));
    return;
  }
  cx.out(0, cx.squeeze(cx.tensor(0), axes));
}
MXTS_LOWER(lower_squeeze, "aten::squeeze", "aten::squeeze_");

void lower_expand(Ctx& cx, const tj::Node*) {
  VP sz = cx.in(1);
  std::string shape;
  if (sz->is_static) {
    auto v = cx.arg_int_list(1);
    for (auto& d : v)
      if (d == -1) d = 1;  // Expand broadcasts: 1 keeps the input dim
    shape = cx.ci64(v);
  } else {
    std::string s = cx.shape_list(sz);
    std::string is_neg = cx.emit1("Equal", {s, cx.ci64s(-1)});
    shape = cx.emit1("Where", {is_neg, cx.ci64s(1), s});
  }
  cx.out(0, cx.emit1("Expand", {cx.tensor(0), shape}));
}
MXTS_LOWER(lower_expand, "aten::expand");

void lower_expand_as(Ctx& cx, const tj::Node*) {
  cx.out(0, cx.emit1("Expand", {cx.tensor(0), cx.shape_of(cx.tensor(1))}));
}
MXTS_LOWER(lower_expand_as, "aten::expand_as");

void lower_repeat(Ctx& cx, const tj::Node*) {
  std::string x = cx.tensor(0);
  int64_t r = cx.rank(0);
  int64_t n = cx.in(1)->iv.isList() ? static_cast<int64_t>(cx.in(1)->iv.toListRef().size()) : 1;
  if (n > r) {
    std::vector<int64_t> axes;
    for (int64_t k = 0; k < n - r; ++k) axes.push_back(k);
    x = cx.unsqueeze(x, axes);
  }
  cx.out(0, cx.emit1("Tile", {x, cx.shape_list(1)}));
}
MXTS_LOWER(lower_repeat, "aten::repeat");

// start/end as 1-element int64 tensors; None -> default
std::string bound(Ctx& cx, size_t idx, int64_t dflt) {
  VP v = cx.in(idx);
  if (v->iv.isNone()) return cx.ci64({dflt});
  if (v->is_static && v->iv.isInt()) {
    int64_t x = v->iv.toInt();
    return cx.ci64({x});
  }
  return cx.unsqueeze(cx.scalar_i64(v), {0});
}

void lower_slice(Ctx& cx, const tj::Node*) {
  // slice(self, dim, start, end, step)
  if (!cx.in(0)->iv.isTensor()) cx.unsupported("slicing a dynamic list");
  int64_t dim = norm_dim(cx.arg_int(1), cx.rank(0));
  int64_t step = cx.n_in() > 4 ? cx.arg_int(4) : 1;
  std::string x = cx.tensor(0);
  cx.out(0,
         cx.emit1("Slice", {x, bound(cx, 2, 0), bound(cx, 3, INT64_MAX), cx.ci64({dim}), cx.ci64({step})}));
}
MXTS_LOWER(lower_slice, "aten::slice");

void lower_narrow(Ctx& cx, const tj::Node*) {
  int64_t dim = norm_dim(cx.arg_int(1), cx.rank(0));
  std::string start = bound(cx, 2, 0);
  std::string end = cx.emit1("Add", {start, bound(cx, 3, 0)});
  cx.out(0, cx.emit1("Slice", {cx.tensor(0), start, end, cx.ci64({dim})}));
}
MXTS_LOWER(lower_narrow, "aten::narrow");

void lower_select(Ctx& cx, const tj::Node*) {
  int64_t dim = norm_dim(cx.arg_int(1), cx.rank(0));
  cx.out(0, cx.emit1("Gather", {cx.tensor(0), cx.scalar_i64(cx.in(2))}, {attr("axis", dim)}));
}
MXTS_LOWER(lower_select, "aten::select");

void lower_index_select(Ctx& cx, const tj::Node*) {
  int64_t dim = norm_dim(cx.arg_int(1), cx.rank(0));
  cx.out(0, cx.emit1("Gather", {cx.tensor(0), cx.tensor_as(2, at::kLong)}, {attr("axis", dim)}));
}
MXTS_LOWER(lower_index_select, "aten::index_select");

// split family. split_with_sizes: the sizes are explicit (torch checks they
// sum to the dimension), one Split. split(size): Slice k*size..(k+1)*size,
// the last open-ended, right for any length of the axis that gives the same
// number of pieces. chunk(n): piece length ceil(d/n) computed from the
// runtime shape, then Slices. unbind: Split into ones + Squeeze (the count
// is the example's).
void lower_split(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  int64_t r = cx.rank(0);
  int64_t dim;
  if (k == "aten::unbind") dim = cx.n_in() > 1 ? cx.arg_int(1) : 0;
  else dim = cx.n_in() > 2 ? cx.arg_int(2) : 0;
  dim = norm_dim(dim, r);
  const auto& outs = cx.ex_out[0].toListRef();
  size_t m = outs.size();
  std::string x = cx.tensor(0);
  std::vector<std::string> parts;
  bool explicit_sizes = k == "aten::split_with_sizes" || k == "aten::unbind" ||
                        ((k == "aten::split" || k == "aten::unsafe_split") && !cx.in(1)->iv.isInt());
  if (m == 1) {
    parts = {x};
  } else if (explicit_sizes) {
    std::vector<int64_t> sizes;
    for (const auto& o : outs) sizes.push_back(k == "aten::unbind" ? 1 : o.toTensor().size(dim));
    parts = cx.emit("Split", {x, cx.ci64(sizes)}, {attr("axis", dim)}, m);
  } else if (k == "aten::split" || k == "aten::unsafe_split") {
    int64_t size = cx.arg_int(1);
    for (size_t j = 0; j < m; ++j) {
      int64_t end = j + 1 == m ? INT64_MAX : static_cast<int64_t>(j + 1) * size;
      parts.push_back(
          cx.emit1("Slice", {x, cx.ci64({static_cast<int64_t>(j) * size}), cx.ci64({end}), cx.ci64({dim})}));
    }
  } else if (k == "aten::chunk" || k == "aten::unsafe_chunk") {
    int64_t chunks = cx.arg_int(1);
    // piece = (d + chunks - 1) / chunks  (non-negative: truncating Div is exact)
    std::string d = cx.emit1("Slice", {cx.shape_of(x), cx.ci64({dim}), cx.ci64({dim + 1})});
    std::string piece = cx.emit1("Div", {cx.emit1("Add", {d, cx.ci64({chunks - 1})}), cx.ci64({chunks})});
    for (size_t j = 0; j < m; ++j) {
      std::string st = j == 0 ? cx.ci64({0}) : cx.emit1("Mul", {piece, cx.ci64({static_cast<int64_t>(j)})});
      std::string en = j + 1 == m ? cx.ci64({INT64_MAX})
                                  : cx.emit1("Mul", {piece, cx.ci64({static_cast<int64_t>(j + 1)})});
      parts.push_back(cx.emit1("Slice", {x, st, en, cx.ci64({dim})}));
    }
  } else {  // tensor_split and other overloads: sizes of the example
    std::vector<int64_t> sizes;
    for (const auto& o : outs) sizes.push_back(o.toTensor().size(dim));
    parts = cx.emit("Split", {x, cx.ci64(sizes)}, {attr("axis", dim)}, m);
  }
  auto list = std::make_shared<Val>();
  list->iv = cx.ex_out[0];
  list->has_elems = true;
  for (size_t j = 0; j < parts.size(); ++j) {
    auto e = std::make_shared<Val>();
    e->iv = outs[j];
    e->name = k == "aten::unbind" ? cx.squeeze(parts[j], {dim}) : parts[j];
    e->onnx_type = onnx_type_of(outs[j].toTensor().scalar_type());
    list->elems.push_back(e);
  }
  cx.out_val(0, list);
}
MXTS_LOWER(lower_split, "aten::split", "aten::split_with_sizes", "aten::chunk", "aten::unbind",
           "aten::unsafe_split", "aten::unsafe_chunk", "aten::tensor_split", "aten::unsafe_split_with_sizes");

std::vector<VP> tensor_list(Ctx& cx, size_t idx) {
  return elems_of(cx, cx.in(idx));
}

void lower_cat(Ctx& cx, const tj::Node* n) {
  bool stack = std::string(n->kind().toQualString()) == "aten::stack";
  auto elems = tensor_list(cx, 0);
  auto dt = cx.out_st();
  int64_t r = cx.ex_out_t().dim();
  int64_t dim = norm_dim(cx.arg_int(1), r);
  std::vector<std::string> parts;
  for (auto& e : elems) {
    if (!stack && e->iv.isTensor() && e->iv.toTensor().dim() == 1 && e->iv.toTensor().size(0) == 0 && r > 1)
      continue;  // legacy: empty 1-D tensors are skipped by torch.cat
    std::string t = cx.tensor_as(e, dt);
    parts.push_back(stack ? cx.unsqueeze(t, {dim}) : t);
  }
  cx.out(0, parts.size() == 1 ? cx.emit1("Identity", parts) : cx.emit1("Concat", parts, {attr("axis", dim)}));
}
MXTS_LOWER(lower_cat, "aten::cat", "aten::stack", "aten::concat");

}  // namespace
}  // namespace mx::torchscript
