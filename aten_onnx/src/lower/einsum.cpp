// einsum(equation, tensors, path=None) -> ONNX Einsum (opset 12), the
// operands in the result's dtype. ONNX Runtime's CPU kernel takes float,
// double, int32 and int64; an fp16 einsum runs in float and casts back.
#include "mx/onnx_proto.hpp"

#include <algorithm>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void lower_einsum(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const bool widen = dt == onnx::TensorProto::FLOAT16 || dt == onnx::TensorProto::BFLOAT16;
  const int32_t work = widen ? onnx::TensorProto::FLOAT : dt;
  std::string eq = cx.string_arg("equation", "");
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  std::vector<std::string> ops;
  for (const Value* t : cx.tensor_list("tensors")) ops.push_back(cx.cast(t->onnx, t->dtype, work));
  cx.out(0, cx.cast(cx.emit1("Einsum", ops, {attr("equation", eq)}), work, dt));
}
MX_ATEN_LOWER(lower_einsum, "aten.einsum");

}  // namespace
}  // namespace mx::aten_onnx
