// as_strided stays in the .pt2 frontend: it reads the strides and storage
// offset the program recorded for its input (graph.tensor_values), which
// the shared argument interface does not carry.
#include <climits>
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

}  // namespace
}  // namespace mx::torch_export
