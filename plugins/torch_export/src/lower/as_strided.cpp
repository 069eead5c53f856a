// as_strided stays in the .pt2 frontend: it reads the strides and storage
// offset the program recorded for its input (graph.tensor_values), which
// the shared argument interface does not carry.
#include <algorithm>
#include <climits>
#include <set>
#include <unordered_map>

#include "mx/aten_onnx/view_copies.hpp"
#include "lower_ctx.hpp"

namespace mx::torch_export {
namespace {

// as_strided(self, size, stride, storage_offset=None) reads self's
// storage directly, but the graph holds self, not its storage: a storage
// element is reachable only as an element of self, at position
// storage_offset(self) + sum(i_r * stride_r(self)). So a contiguous view of
// a contiguous self at self's own offset is a Reshape (dynamic dims too);
// any other view (static sizes) is a Gather of self's elements, each
// storage position the view reads looked up among self's - a transposed or
// sliced self included. A position self does not cover (the view reaches
// past self into storage the graph never had) is refused, naming the node,
// both layouts and the position.
bool contiguous(const std::vector<Dim>& sizes, const std::vector<int64_t>& strides) {
  int64_t expect = 1;
  for (size_t r = sizes.size(); r-- > 0;) {
    if (sizes[r].is_static && sizes[r].value == 1) continue;
    if (strides[r] != expect) return false;
    if (!sizes[r].is_static) return r == 0;  // only the leading dim may be dynamic
    expect *= sizes[r].value;
  }
  return true;
}

std::string int_list_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "]";
}

// A tensor's layout in its storage, all static.
struct StridedLayout {
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
  std::string text() const {
    return "sizes " + int_list_text(sizes) + ", strides " + int_list_text(strides) + ", storage offset " +
           std::to_string(offset);
  }
};

// Calls fn(storage position) for every element in row-major order.
template <class Fn>
void for_each_position(const StridedLayout& l, Fn fn) {
  int64_t n = 1;
  for (auto d : l.sizes) n *= d;
  std::vector<int64_t> idx(l.sizes.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t at = l.offset;
    for (size_t r = 0; r < l.sizes.size(); ++r) at += idx[r] * l.strides[r];
    fn(at);
    for (size_t r = l.sizes.size(); r-- > 0;) {
      if (++idx[r] < l.sizes[r]) break;
      idx[r] = 0;
    }
  }
}

std::vector<int64_t> static_dims(LowerCtx& cx, const std::vector<Dim>& dims, const std::string& what) {
  std::vector<int64_t> out;
  for (const auto& d : dims) {
    if (!d.is_static)
      cx.unsupported("as_strided with a symbolic " + what + " (" + (d.expr.empty() ? d.symbol : d.expr) +
                     ") outside the contiguous case");
    out.push_back(d.value);
  }
  return out;
}

// For each element of `view`, the row-major index of the element of `self`
// at the same storage position.
std::vector<int64_t> gather_indices(LowerCtx& cx, const StridedLayout& self, const StridedLayout& view) {
  std::unordered_map<int64_t, int64_t> index_at;  // storage position -> flat index in self
  int64_t k = 0;
  for_each_position(self, [&](int64_t at) { index_at.emplace(at, k++); });  // aliases: the first
  std::vector<int64_t> flat;
  for_each_position(view, [&](int64_t at) {
    auto it = index_at.find(at);
    if (it == index_at.end())
      cx.unsupported("as_strided view (" + view.text() + ") reads storage element " + std::to_string(at) +
                     ", which is not an element of its input (" + self.text() +
                     "): the graph does not hold the rest of that storage");
    flat.push_back(it->second);
  });
  return flat;
}

void lower_as_strided(LowerCtx& cx) {
  const TensorMeta& in = cx.meta_of(cx.arg("self")->at("as_tensor").at("name").get<std::string>());
  const TensorMeta& out = cx.out_meta();
  StridedLayout self, view;
  self.strides = static_dims(cx, in.strides, "input stride");
  if (self.strides.size() != in.sizes.size())
    cx.unsupported("as_strided of an input without recorded strides");
  self.offset = static_dims(cx, {in.storage_offset}, "input storage offset")[0];
  view.strides = cx.ints("stride");
  view.offset = cx.has("storage_offset") ? cx.int_arg("storage_offset") : self.offset;  // None: self's own
  if (view.strides.size() != out.sizes.size())
    cx.unsupported("as_strided with " + std::to_string(view.strides.size()) + " strides for " +
                   std::to_string(out.sizes.size()) + " dims");
  if (view.offset == self.offset && contiguous(in.sizes, self.strides) && contiguous(out.sizes, view.strides))
    return cx.out(0, cx.emit1("Reshape", {cx.tensor("self"), cx.int_list("size")}));
  self.sizes = static_dims(cx, in.sizes, "input size");
  view.sizes = static_dims(cx, out.sizes, "view size");
  const std::vector<int64_t> flat = gather_indices(cx, self, view);
  std::string x = cx.emit1("Reshape", {cx.tensor("self"), cx.ci64({-1})});
  std::string g = cx.emit1("Gather", {x, cx.ci64(flat)}, {attr("axis", int64_t{0})});
  cx.out(0, cx.emit1("Reshape", {g, cx.ci64(view.sizes)}));
}
// as_strided and its twin as_strided_copy (view_copies.hpp).
static ::mx::aten_onnx::ViewLoweringRegistrar as_strided_registrar({"aten.as_strided"},
                                                                   &with_lower_ctx<lower_as_strided>,
                                                                   __FILE__, kFrontend);

// Whether a layout's positions are exactly [0, numel): torch's clone keeps
// such ("non-overlapping and dense") strides.
bool dense(const StridedLayout& l) {
  int64_t n = 1;
  for (auto d : l.sizes) n *= d;
  std::vector<bool> hit(static_cast<size_t>(n), false);
  bool ok = true;
  for_each_position(l, [&](int64_t at) {
    if (at < 0 || at >= n || hit[at]) ok = false;
    else hit[at] = true;
  });
  return ok;
}

// as_strided_scatter(self, src, size, stride, storage_offset=None) (the
// core program's form of a write through as_strided): torch clones self
// (its strides kept when dense, else row-major, at offset 0) and copies src
// into the clone's as_strided view - src scattered to the elements of self
// at the view's storage positions. Static sizes only; a view whose
// elements overlap is refused, as torch's copy_ into it is.
void lower_as_strided_scatter(LowerCtx& cx) {
  const TensorMeta& in = cx.meta_of(cx.arg("self")->at("as_tensor").at("name").get<std::string>());
  StridedLayout self, view;
  self.sizes = static_dims(cx, in.sizes, "input size");
  self.strides = static_dims(cx, in.strides, "input stride");
  if (self.strides.size() != self.sizes.size())
    cx.unsupported("as_strided_scatter of an input without recorded strides");
  if (!dense(self)) {
    if (self.sizes.size() >= 4)
      cx.unsupported("as_strided_scatter of a non-dense input of rank 4 or more (its clone's memory format)");
    int64_t n = 1;
    for (size_t r = self.sizes.size(); r-- > 0;) {
      self.strides[r] = n;
      n *= self.sizes[r];
    }
  }
  view.sizes = cx.ints("size");
  view.strides = cx.ints("stride");
  view.offset = cx.has("storage_offset") ? cx.int_arg("storage_offset") : 0;  // None: the clone's own, 0
  if (view.strides.size() != view.sizes.size())
    cx.unsupported("as_strided_scatter with " + std::to_string(view.strides.size()) + " strides for " +
                   std::to_string(view.sizes.size()) + " dims");
  const std::vector<int64_t> flat = gather_indices(cx, self, view);
  if (std::set<int64_t>(flat.begin(), flat.end()).size() != flat.size())
    cx.unsupported("as_strided_scatter into a view (" + view.text() +
                   ") several of whose elements are one element of its input");
  const std::string x = cx.emit1("Reshape", {cx.tensor("self"), cx.ci64({-1})});
  const std::string src = cx.emit1("Reshape", {cx.tensor("src"), cx.ci64({-1})});
  const std::string y = cx.emit1("ScatterElements", {x, cx.ci64(flat), src}, {attr("axis", int64_t{0})});
  cx.out(0, cx.emit1("Reshape", {y, cx.shape_of(cx.tensor("self"))}));
}
MXTE_LOWER(lower_as_strided_scatter, "aten.as_strided_scatter");

// fill_diagonal_(self, fill_value, wrap=False): torch fills the storage
// positions of self's elements (i, i, ..., i) for i < min(size 0, size 1),
// and with wrap (2-D, more rows than columns + 1) the positions continuing
// at the same step after them - on a contiguous self the rows below the
// square restarting the diagonal every columns + 1 rows. Static sizes.
void lower_fill_diagonal(LowerCtx& cx) {
  const std::string self_name = cx.arg("self")->at("as_tensor").at("name").get<std::string>();
  const TensorMeta& in = cx.meta_of(self_name);
  const std::vector<int64_t> sizes = static_dims(cx, in.sizes, "input size");
  const size_t r = sizes.size();
  if (r < 2) cx.unsupported("fill_diagonal_ of a tensor of rank below 2");
  for (size_t k = 2; k < r; ++k)
    if (sizes[k] != sizes[0]) cx.unsupported("fill_diagonal_ of a tensor above 2-D whose dims differ");
  int64_t numel = 1, diag = 0;
  std::vector<int64_t> rowmajor(r);
  for (size_t k = r; k-- > 0;) {
    rowmajor[k] = numel;
    numel *= sizes[k];
    diag += rowmajor[k];
  }
  const int64_t n = std::min(sizes[0], sizes[1]);
  std::vector<int64_t> flat;
  for (int64_t i = 0; i < n; ++i) flat.push_back(i * diag);
  const bool wrap = cx.bool_arg("wrap", false);
  if (wrap && r == 2 && sizes[0] > sizes[1] + 1) {
    std::vector<int64_t> strides = static_dims(cx, in.strides, "input stride");
    if (strides.size() != 2 || strides[1] != 1 || strides[0] != sizes[1])
      cx.unsupported("fill_diagonal_ with wrap of a non-contiguous tensor (it wraps through storage)");
    const int64_t step = sizes[1] + 1;
    const int64_t more = (numel + step - 1) / step - n;
    for (int64_t i = 0; i < more; ++i) flat.push_back(sizes[1] * step + i * diag);
  }
  const int32_t dt = cx.dtype_of("self");
  const std::string x = cx.emit1("Reshape", {cx.tensor("self"), cx.ci64({-1})});
  const std::string fill =
      cx.emit1("Expand", {cx.operand("fill_value", dt), cx.ci64({static_cast<int64_t>(flat.size())})});
  const std::string y = cx.emit1("ScatterElements", {x, cx.ci64(flat), fill}, {attr("axis", int64_t{0})});
  cx.out(0, cx.emit1("Reshape", {y, cx.shape_of(cx.tensor("self"))}));
}
MXTE_LOWER(lower_fill_diagonal, "aten.fill_diagonal_");

}  // namespace
}  // namespace mx::torch_export
