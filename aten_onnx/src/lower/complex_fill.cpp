// Complex values chosen and filled, on the pair layout (complex_pairs.hpp):
// where / masked_fill with complex, real or number operands (the condition
// gains a trailing 1 so it broadcasts against the pairs), and the *_like
// creations of a complex tensor (full_like's value a number or a complex
// number; a real result of one keeps PyTorch's shape), and the complex
// values core ATen makes from numbers alone (scalar_tensor, full, zeros,
// ones, empty: a frontend asks for them when a node that reads no tensor
// makes a complex one).
#include "mx/onnx_proto.hpp"

#include "complex_pairs.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"

namespace mx::aten_onnx {
namespace {

// A bool condition or mask of PyTorch rank r against [..., 2] pairs.
std::string condition(OpContext& cx, const char* name) {
  const Value& v = cx.value_of(name);
  return cx.unsqueeze(cx.cast(v.onnx, v.dtype, onnx::TensorProto::BOOL),
                      {static_cast<int64_t>(v.shape.size())});
}

void lower_complex_where(OpContext& cx) {
  const int32_t dt = pairs::component(cx.out_dtype());
  if (cx.op() == "masked_fill")
    return cx.out(0, cx.emit1("Where", {condition(cx, "mask"), pairs::operand(cx, "value", dt),
                                        pairs::operand(cx, "self", dt)}));
  cx.out(0, cx.emit1("Where", {condition(cx, "condition"), pairs::operand(cx, "self", dt),
                               pairs::operand(cx, "other", dt)}));
}
MX_ATEN_LOWER(lower_complex_where, "complex.aten.where.self", "complex.aten.where.ScalarOther",
              "complex.aten.where.ScalarSelf", "complex.aten.masked_fill");

// zeros_like / ones_like / full_like / empty_like (zeros) of a complex tensor.
void lower_complex_like(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int32_t to = cx.out_dtype();
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const std::string op = cx.op();
  if (!pairs::is_complex(to)) {  // a real result: PyTorch's shape
    const std::string shape = cx.emit1("Slice", {cx.shape_of(v.onnx), cx.ci64({0}), cx.ci64({r})});
    if (op == "full_like" && cx.arg_kind("fill_value") == ArgKind::complex_number)
      cx.unsupported("full_like with a complex value and a real dtype");
    const std::string value =
        op == "full_like" ? cx.operand("fill_value", to) : cx.cscalar(op == "ones_like", to);
    return cx.out(0, cx.emit1("Expand", {value, shape}));
  }
  const int32_t dt = pairs::component(to);
  const std::string value =
      op == "full_like" ? pairs::operand(cx, "fill_value", dt)
                        : cx.cast(cx.ci64({op == "ones_like" ? 1 : 0, 0}), onnx::TensorProto::INT64, dt);
  cx.out(0, cx.emit1("Expand", {value, cx.shape_of(v.onnx)}));
}
MX_ATEN_LOWER(lower_complex_like, "complex.aten.zeros_like", "complex.aten.ones_like",
              "complex.aten.full_like", "complex.aten.empty_like");

void lower_complex_full(OpContext& cx) {
  const int32_t dt = pairs::component(cx.out_dtype());
  const std::string op = cx.op();
  std::string value;
  if (op == "scalar_tensor" || op == "full") {
    value = pairs::operand(cx, op == "full" ? "fill_value" : "s", dt);
  } else {
    value = cx.cast(cx.ci64({op == "ones" ? 1 : 0, 0}), onnx::TensorProto::INT64, dt);
  }
  if (op == "scalar_tensor") return cx.out(0, cx.emit1("Identity", {value}));
  const std::string shape =
      cx.emit1("Concat", {cx.int_list("size"), cx.ci64({2})}, {attr("axis", int64_t{0})});
  cx.out(0, cx.emit1("Expand", {value, shape}));
}
MX_ATEN_LOWER(lower_complex_full, "complex.aten.scalar_tensor", "complex.aten.full", "complex.aten.zeros",
              "complex.aten.ones", "complex.aten.empty");

}  // namespace
}  // namespace mx::aten_onnx
