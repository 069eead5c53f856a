// Scalars and static facts: scalar <-> tensor conversions (NumToTensor,
// Int, Float, ScalarImplicit, item), size/numel, and values fully known
// from the example (dim, dtype, device, len, is/isnot, ...).
#include <algorithm>

#include "complex_values.hpp"
#include "ctx.hpp"
#include "dynamic_dims.hpp"

namespace mx::torchscript {
namespace {

// The node's outputs as static values: the example's, which hold at every
// input shape.
void bind_static_outputs(Ctx& cx, const tj::Node* n) {
  for (size_t k = 0; k < n->outputs().size(); ++k) {
    auto v = std::make_shared<Val>();
    v->iv = cx.ex_out[k];
    v->is_static = true;
    cx.out_val(k, v);
  }
}

void lower_num_to_tensor(Ctx& cx, const tj::Node*) {
  VP s = cx.in(0);
  std::string n = cx.tensor(s);
  cx.out(0, cx.cast(n, cx.onnx_type(s), onnx_type_of(cx.out_st())));
}
MXTS_LOWER(lower_num_to_tensor, "prim::NumToTensor");

void lower_int(Ctx& cx, const tj::Node*) {
  cx.out(0, cx.scalar_i64(cx.in(0)), onnx::TensorProto::INT64);
}
MXTS_LOWER(lower_int, "aten::Int", "aten::IntImplicit");

void lower_float(Ctx& cx, const tj::Node*) {
  VP s = cx.in(0);
  cx.out(0, cx.cast(cx.tensor(s), cx.onnx_type(s), onnx::TensorProto::DOUBLE), onnx::TensorProto::DOUBLE);
}
MXTS_LOWER(lower_float, "aten::Float", "aten::FloatImplicit");

void lower_scalar_implicit(Ctx& cx, const tj::Node*) {
  VP s = cx.in(0);
  cx.out(0, cx.tensor(s), cx.onnx_type(s));
}
MXTS_LOWER(lower_scalar_implicit, "aten::ScalarImplicit", "aten::item");

// A static dim (its shifted run agrees: dynamic_dims.hpp) is the example's
// size, a static value like any other: it folds into what reads it instead
// of becoming Shape + Gather.
void lower_size(Ctx& cx, const tj::Node* n) {
  const VP x = cx.in(0);
  const auto dynamic = dynamic_dims(cx.ex_t(0), x->shift, x->shifted);
  if (n->inputs().size() >= 2) {
    const int64_t d = norm_dim(cx.arg_int(1), cx.rank(0));
    if (!dynamic[static_cast<size_t>(d)]) return bind_static_outputs(cx, n);
    cx.out(0, cx.dim_size(cx.tensor(0), d), onnx::TensorProto::INT64);
  } else {
    if (std::none_of(dynamic.begin(), dynamic.end(), [](bool b) { return b; }))
      return bind_static_outputs(cx, n);
    cx.out(0, torch_shape(cx, x), onnx::TensorProto::INT64);
  }
}
MXTS_LOWER(lower_size, "aten::size");

void lower_numel(Ctx& cx, const tj::Node*) {
  std::string s = torch_shape(cx, cx.in(0));
  cx.out(0, cx.emit1("ReduceProd", {s}, {attr("keepdims", int64_t{0})}), onnx::TensorProto::INT64);
}
MXTS_LOWER(lower_numel, "aten::numel");

// Values fully determined by static facts of the example (rank, dtype, device).
void lower_static(Ctx& cx, const tj::Node* n) {
  bind_static_outputs(cx, n);
}
MXTS_LOWER(lower_static, "aten::dim", "prim::dtype", "prim::device", "prim::is_cuda", "aten::len",
           "aten::__is__", "aten::__isnot__", "prim::layout", "aten::is_floating_point",
           "prim::requires_grad");

}  // namespace
}  // namespace mx::torchscript
