// Moving data without computing: flip, roll, unflatten, movedim/moveaxis,
// pixel_shuffle, broadcast_to, tile, meshgrid.
#include <climits>

#include "ctx.hpp"
#include "list_values.hpp"

namespace mx::torchscript {
namespace {

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
  cx.out(0, cx.emit1("DepthToSpace", {cx.tensor(0)},
                     {attr("blocksize", cx.arg_int(1)), attr("mode", std::string("CRD"))}));
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
}  // namespace mx::torchscript

namespace mx::torchscript {
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

}  // namespace
}  // namespace mx::torchscript
