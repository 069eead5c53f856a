// einsum(equation, tensors, path=None) -> ONNX Einsum (opset 12), the
// operands in the result's dtype. ONNX Runtime's CPU kernel takes float,
// double, int32 and int64; an fp16 einsum runs in float and casts back.
#include "mx/onnx_proto.hpp"

#include <algorithm>

#include "lower_ctx.hpp"

namespace mxte {
namespace {

void lower_einsum(LowerCtx& cx) {
  const int32_t dt = cx.out_dtype();
  const bool widen = dt == onnx::TensorProto::FLOAT16 || dt == onnx::TensorProto::BFLOAT16;
  const int32_t work = widen ? onnx::TensorProto::FLOAT : dt;
  std::string eq = cx.string_arg("equation", "");
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  std::vector<std::string> ops;
  for (const auto& t : cx.arg("tensors")->at("as_tensors")) {
    auto it = cx.values.find(t.at("name").get<std::string>());
    if (it == cx.values.end()) cx.unsupported("einsum reads an operand nothing defines");
    ops.push_back(cx.cast(it->second.onnx, it->second.dtype, work));
  }
  cx.out(0, cx.cast(cx.emit1("Einsum", ops, {attr("equation", eq)}), work, dt));
}
MXTE_LOWER(lower_einsum, "aten.einsum");

}  // namespace
}  // namespace mxte
