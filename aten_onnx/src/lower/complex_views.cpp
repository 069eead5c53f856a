// Complex values made and reshaped: view_as_complex, polar, and the view
// ops a program applies to complex tensors between them - what rotary
// embeddings written with complex numbers (Meta's LLaMA reference code)
// do. A complex tensor is carried as real pairs in a trailing axis of 2
// (lower/fft.cpp); the ops here keep that axis last. Every frontend that
// carries complex values dispatches a node reading one to its "complex."
// registration, so these serve both.
#include "mx/onnx_proto.hpp"

#include <algorithm>
#include <climits>

#include "complex_pairs.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"

namespace mx::aten_onnx {
namespace {

// view_as_complex(self): a real [..., 2] already is the pair layout.
void lower_view_as_complex(OpContext& cx) {
  cx.out(0, cx.emit1("Identity", {cx.tensor("self")}));
}
MX_ATEN_LOWER(lower_view_as_complex, "aten.view_as_complex");

// polar(abs, angle) = abs * (cos(angle), sin(angle)).
void lower_polar(OpContext& cx) {
  const std::string abs = cx.tensor("abs"), angle = cx.tensor("angle");
  const std::string re = cx.emit1("Mul", {abs, cx.emit1("Cos", {angle})});
  const std::string im = cx.emit1("Mul", {abs, cx.emit1("Sin", {angle})});
  const int64_t r = cx.out_rank();
  cx.out(0, cx.emit1("Concat", {cx.unsqueeze(re, {r}), cx.unsqueeze(im, {r})}, {attr("axis", r)}));
}
MX_ATEN_LOWER(lower_polar, "aten.polar");

// These lowerings normalise their dims against PyTorch's rank, which
// leaves the trailing pair axis alone: on a complex tensor they do what
// they do on a real one. The real lowerings are the shared ones (the
// target has no "complex." prefix).
void lower_as_real_op(OpContext& cx) {
  LowerFn fn = find_lowering(cx.target(), "");
  if (!fn) cx.unsupported("no lowering of " + cx.target());
  fn(cx);
}
MX_ATEN_LOWER(lower_as_real_op, "complex.aten.slice", "complex.aten.select", "complex.aten.unsqueeze",
              "complex.aten.squeeze", "complex.aten.clone", "complex.aten.alias", "complex.aten.contiguous",
              "complex.aten.detach", "complex.aten.lift_fresh_copy", "complex.aten.index_select",
              "complex.aten.split", "complex.aten.split_with_sizes", "complex.aten.unbind",
              "complex.aten.chunk", "complex.aten.tensor_split", "complex.aten.unsafe_split",
              "complex.aten.unsafe_chunk", "complex.aten.unsafe_split_with_sizes", "complex.aten.split_copy",
              "complex.aten.split_with_sizes_copy", "complex.aten.unbind_copy", "complex.aten.narrow",
              "complex.aten.narrow_copy", "complex.aten.flip", "complex.aten.roll", "complex.aten.index");

// gather(self, dim, index): the index gains the pair axis (both parts of
// an element are gathered together).
void lower_complex_gather(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  if (r == 0) return cx.out(0, cx.emit1("Identity", {v.onnx}));
  const std::string index = cx.tensor("index");
  const std::string shape =
      cx.emit1("Concat", {cx.shape_of(index), cx.ci64({2})}, {attr("axis", int64_t{0})});
  const std::string paired = cx.emit1("Expand", {cx.unsqueeze(index, {r}), shape});
  cx.out(0, cx.emit1("GatherElements", {v.onnx, paired}, {attr("axis", norm_dim(cx.int_arg("dim"), r))}));
}
MX_ATEN_LOWER(lower_complex_gather, "complex.aten.gather");

// view / reshape: the new shape gains the pair axis.
void lower_complex_view(OpContext& cx) {
  const char* size = cx.has("size") ? "size" : "shape";
  const std::string shape = cx.emit1("Concat", {cx.int_list(size), cx.ci64({2})}, {attr("axis", int64_t{0})});
  cx.out(0, cx.emit1("Reshape", {cx.tensor("self"), shape}));
}
MX_ATEN_LOWER(lower_complex_view, "complex.aten.view", "complex.aten.reshape", "complex.aten._unsafe_view");

// expand: the pair axis is kept (-1 keeps a dim, as 1 does for Expand).
void lower_complex_expand(OpContext& cx) {
  const std::string size = cx.emit1("Abs", {cx.int_list("size")});
  cx.out(0, cx.emit1("Expand", {cx.tensor("self"),
                                cx.emit1("Concat", {size, cx.ci64({2})}, {attr("axis", int64_t{0})})}));
}
MX_ATEN_LOWER(lower_complex_expand, "complex.aten.expand");

// permute / transpose / t: the pair axis stays last.
void lower_complex_permute(OpContext& cx) {
  const int64_t r = cx.rank_of("self");
  std::vector<int64_t> perm;
  if (cx.has("dims")) {
    for (int64_t d : cx.ints("dims")) perm.push_back(norm_dim(d, r));
  } else if (cx.op() == "t") {
    for (int64_t k = 0; k < r; ++k) perm.push_back(r == 2 ? 1 - k : k);
  } else {
    for (int64_t k = 0; k < r; ++k) perm.push_back(k);
    std::swap(perm[norm_dim(cx.int_arg("dim0"), r)], perm[norm_dim(cx.int_arg("dim1"), r)]);
  }
  perm.push_back(r);
  cx.out(0, cx.transpose(cx.tensor("self"), perm));
}
MX_ATEN_LOWER(lower_complex_permute, "complex.aten.permute", "complex.aten.transpose", "complex.aten.t");

// flatten(self, start_dim=0, end_dim=-1): PyTorch's dims start..end become
// one, the pair axis kept after them.
void lower_complex_flatten(OpContext& cx) {
  const char* in = cx.has("self") ? "self" : "input";
  const int64_t r = cx.rank_of(in);
  const std::string x = cx.tensor(in);
  if (r == 0) return cx.out(0, cx.emit1("Reshape", {x, cx.ci64({1, 2})}));
  const int64_t s = norm_dim(cx.int_arg("start_dim", 0), r), e = norm_dim(cx.int_arg("end_dim", -1), r);
  const std::string shape = cx.shape_of(x);
  std::vector<std::string> parts;
  if (s > 0) parts.push_back(cx.emit1("Slice", {shape, cx.ci64({0}), cx.ci64({s})}));
  parts.push_back(cx.ci64({-1}));
  parts.push_back(cx.emit1("Slice", {shape, cx.ci64({e + 1}), cx.ci64({r + 1})}));  // the pair axis too
  cx.out(0, cx.emit1("Reshape", {x, cx.emit1("Concat", parts, {attr("axis", int64_t{0})})}));
}
MX_ATEN_LOWER(lower_complex_flatten, "complex.aten.flatten");

// unflatten(self, dim, sizes): PyTorch's dim split into `sizes`.
void lower_complex_unflatten(OpContext& cx) {
  const int64_t r = cx.rank_of("self"), dim = norm_dim(cx.int_arg("dim"), r);
  const std::string x = cx.tensor("self"), shape = cx.shape_of(x);
  std::vector<std::string> parts;
  if (dim > 0) parts.push_back(cx.emit1("Slice", {shape, cx.ci64({0}), cx.ci64({dim})}));
  parts.push_back(cx.int_list("sizes"));
  parts.push_back(cx.emit1("Slice", {shape, cx.ci64({dim + 1}), cx.ci64({r + 1})}));
  cx.out(0, cx.emit1("Reshape", {x, cx.emit1("Concat", parts, {attr("axis", int64_t{0})})}));
}
MX_ATEN_LOWER(lower_complex_unflatten, "complex.aten.unflatten");

// cat / stack of tensors one of which is complex: a real one joins as
// (x, 0), every one in the result's precision. cat skips the legacy empty
// tensors (1-D of size 0) as ATen does when the others have another rank.
void lower_complex_cat_stack(OpContext& cx) {
  const int32_t dt = pairs::component(cx.out_dtype());
  const bool stack = cx.op() == "stack";
  const int64_t rank = cx.out_rank();
  const int64_t dim = norm_dim(cx.int_arg("dim", 0), rank);
  std::vector<std::string> parts;
  for (const Value* v : cx.tensor_list("tensors")) {
    const int64_t r = static_cast<int64_t>(v->shape.size());
    if (!stack && rank != 1 && r == 1 && v->shape[0].is_static && v->shape[0].value == 0) continue;
    std::string p = pairs::is_complex(v->dtype) ? cx.cast(v->onnx, pairs::component(v->dtype), dt)
                                                : pairs::real_as_pair(cx, cx.cast(v->onnx, v->dtype, dt), r);
    parts.push_back(stack ? cx.unsqueeze(p, {dim}) : p);
  }
  if (parts.empty()) cx.unsupported("cat of legacy empty tensors only");
  cx.out(0, parts.size() == 1 ? cx.emit1("Identity", {parts[0]})
                              : cx.emit1("Concat", parts, {attr("axis", dim)}));
}
MX_ATEN_LOWER(lower_complex_cat_stack, "complex.aten.cat", "complex.aten.concat", "complex.aten.stack");

// repeat(self, repeats): Tile, the pair axis repeated once; more repeats
// than dims first add leading dims of size 1.
void lower_complex_repeat(OpContext& cx) {
  const int64_t n = static_cast<int64_t>(cx.list_length("repeats")), r = cx.rank_of("self");
  std::string x = cx.tensor("self");
  if (n > r)
    x = cx.emit1("Reshape", {x, cx.emit1("Concat", {cx.ci64(std::vector<int64_t>(n - r, 1)), cx.shape_of(x)},
                                         {attr("axis", int64_t{0})})});
  const std::string reps =
      cx.emit1("Concat", {cx.int_list("repeats"), cx.ci64({1})}, {attr("axis", int64_t{0})});
  cx.out(0, cx.emit1("Tile", {x, reps}));
}
MX_ATEN_LOWER(lower_complex_repeat, "complex.aten.repeat");

// copy(self, src): src's values in self's shape and dtype - a complex src
// into a real self keeps the real part, as ATen does.
void lower_complex_copy(OpContext& cx) {
  const Value& self = cx.value_of("self");
  const int32_t to = cx.out_dtype();
  if (!pairs::is_complex(to)) {
    const Value& src = cx.value_of("src");
    if (!pairs::is_complex(src.dtype)) cx.unsupported("copy without a complex value");
    const std::string re = cx.squeeze(pairs::part(cx, src.onnx, 0), {static_cast<int64_t>(src.shape.size())});
    return cx.out(0,
                  cx.emit1("Expand", {cx.cast(re, pairs::component(src.dtype), to), cx.shape_of(self.onnx)}));
  }
  const int32_t dt = pairs::component(to);
  cx.out(0, cx.emit1("Expand", {pairs::operand(cx, "src", dt), cx.shape_of(self.onnx)}));
}
MX_ATEN_LOWER(lower_complex_copy, "complex.aten.copy", "complex.aten.copy_");

// slice_scatter(self, src, dim=0, start=None, end=None, step=1): src in
// place of self's slice along PyTorch's dim; with a step, scattered to the
// indices the slice takes (the index has the pair axis too).
void lower_complex_slice_scatter(OpContext& cx) {
  const int64_t r = cx.rank_of("self");
  const int64_t dim = norm_dim(cx.int_arg("dim", 0), r);
  const int32_t dt = pairs::component(cx.out_dtype());
  const std::string x = pairs::operand(cx, "self", dt), src = pairs::operand(cx, "src", dt);
  const std::string start = cx.has("start") ? cx.unsqueeze(cx.sym_int("start"), {0}) : cx.ci64({0});
  const std::string end = cx.has("end") ? cx.unsqueeze(cx.sym_int("end"), {0}) : cx.ci64({INT64_MAX});
  if (const int64_t step = cx.int_arg("step", 1); step != 1) {
    const std::string all = cx.emit1("Range", {cx.ci64s(0), cx.dim_size(x, dim), cx.ci64s(1)});
    std::string index = cx.emit1("Slice", {all, start, end, cx.ci64({0}), cx.ci64({step})});
    std::vector<int64_t> along(r + 1, 1);
    along[dim] = -1;
    index = cx.emit1("Expand", {cx.emit1("Reshape", {index, cx.ci64(along)}), cx.shape_of(src)});
    return cx.out(0, cx.emit1("ScatterElements", {x, index, src}, {attr("axis", dim)}));
  }
  const std::string head = cx.emit1("Slice", {x, cx.ci64({0}), start, cx.ci64({dim})});
  const std::string rest = cx.emit1("Slice", {x, end, cx.ci64({INT64_MAX}), cx.ci64({dim})});
  cx.out(0, cx.emit1("Concat", {head, src, rest}, {attr("axis", dim)}));
}
MX_ATEN_LOWER(lower_complex_slice_scatter, "complex.aten.slice_scatter");

// diagonal(self, offset=0, dim1=0, dim2=1) over static dims: dim1 and dim2
// moved to the front, GatherND of the (i, i + offset) pairs, the diagonal
// moved last before the pair axis (where ATen puts it).
void lower_complex_diagonal(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const int64_t d1 = norm_dim(cx.int_arg("dim1", 0), r), d2 = norm_dim(cx.int_arg("dim2", 1), r);
  const int64_t off = cx.int_arg("offset", 0);
  if (d1 == d2) cx.unsupported("diagonal with dim1 == dim2");
  if (!v.shape[d1].is_static || !v.shape[d2].is_static)
    cx.unsupported("a complex diagonal over a dynamic dim");
  std::vector<int64_t> at;
  for (int64_t i = std::max<int64_t>(0, -off); i < v.shape[d1].value && i + off < v.shape[d2].value; ++i) {
    at.push_back(i);
    at.push_back(i + off);
  }
  if (at.empty()) cx.unsupported("an empty diagonal");
  std::vector<int64_t> perm = {d1, d2};
  for (int64_t k = 0; k < r; ++k)
    if (k != d1 && k != d2) perm.push_back(k);
  perm.push_back(r);
  onnx::TensorProto idx;
  idx.set_data_type(onnx::TensorProto::INT64);
  idx.add_dims(static_cast<int64_t>(at.size() / 2));
  idx.add_dims(2);
  for (int64_t p : at) idx.add_int64_data(p);
  const std::string diag =
      cx.emit1("GatherND", {cx.transpose(v.onnx, perm), cx.constant(idx)});  // [L, rest.., 2]
  std::vector<int64_t> back;
  for (int64_t k = 1; k < r - 1; ++k) back.push_back(k);
  back.push_back(0);
  back.push_back(r - 1);
  cx.out(0, cx.transpose(diag, back));
}
MX_ATEN_LOWER(lower_complex_diagonal, "complex.aten.diagonal", "complex.aten.diagonal_copy");

// expand_as(self, other): other's PyTorch shape, a complex self's pair
// axis kept.
void lower_complex_expand_as(OpContext& cx) {
  const Value& o = cx.value_of("other");
  const int64_t r = static_cast<int64_t>(o.shape.size());
  std::string shape = cx.shape_of(o.onnx);
  const bool pair_in = pairs::is_complex(cx.dtype_of("self")), pair_other = pairs::is_complex(o.dtype);
  if (pair_in && !pair_other) shape = cx.emit1("Concat", {shape, cx.ci64({2})}, {attr("axis", int64_t{0})});
  if (!pair_in && pair_other) shape = cx.emit1("Slice", {shape, cx.ci64({0}), cx.ci64({r})});  // a real self
  cx.out(0, cx.emit1("Expand", {cx.tensor("self"), shape}));
}
MX_ATEN_LOWER(lower_complex_expand_as, "complex.aten.expand_as");

}  // namespace
}  // namespace mx::aten_onnx
