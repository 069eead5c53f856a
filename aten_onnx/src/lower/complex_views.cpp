// Complex values made and reshaped: view_as_complex, polar, and the view
// ops a program applies to complex tensors between them - what rotary
// embeddings written with complex numbers (Meta's LLaMA reference code)
// do. A complex tensor is carried as real pairs in a trailing axis of 2
// (lower/fft.cpp); the ops here keep that axis last. Every frontend that
// carries complex values dispatches a node reading one to its "complex."
// registration, so these serve both.
#include "mx/onnx_proto.hpp"

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
              "complex.aten.detach", "complex.aten.lift_fresh_copy", "complex.aten.cat",
              "complex.aten.index_select");

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

// permute / transpose: the pair axis stays last.
void lower_complex_permute(OpContext& cx) {
  const int64_t r = cx.rank_of("self");
  std::vector<int64_t> perm;
  if (cx.has("dims")) {
    for (int64_t d : cx.ints("dims")) perm.push_back(norm_dim(d, r));
  } else {
    for (int64_t k = 0; k < r; ++k) perm.push_back(k);
    std::swap(perm[norm_dim(cx.int_arg("dim0"), r)], perm[norm_dim(cx.int_arg("dim1"), r)]);
  }
  perm.push_back(r);
  cx.out(0, cx.transpose(cx.tensor("self"), perm));
}
MX_ATEN_LOWER(lower_complex_permute, "complex.aten.permute", "complex.aten.transpose");

}  // namespace
}  // namespace mx::aten_onnx
