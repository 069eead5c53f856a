// einsum(equation, tensors, path=None) -> ONNX Einsum (opset 12), the
// operands in the result's dtype; tensordot as the Einsum it is. ONNX Runtime's CPU kernel takes float,
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

// tensordot(self, other, dims_self, dims_other): dims_self[k] of self
// contracted with dims_other[k] of other; the result's dims are self's free
// dims, then other's, in order - an Einsum equation with a letter per dim.
void lower_tensordot(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const bool widen = dt == onnx::TensorProto::FLOAT16 || dt == onnx::TensorProto::BFLOAT16;
  const int32_t work = widen ? onnx::TensorProto::FLOAT : dt;
  const int64_t rs = cx.rank_of("self"), ro = cx.rank_of("other");
  std::vector<int64_t> ds = cx.ints("dims_self"), dother = cx.ints("dims_other");
  if (ds.size() != dother.size()) cx.unsupported("tensordot with dims lists of different lengths");
  if (rs + ro > 52) cx.unsupported("tensordot of operands with more than 52 dims together");
  auto letter = [](int64_t k) { return static_cast<char>(k < 26 ? 'a' + k : 'A' + (k - 26)); };
  std::string in_self, in_other(static_cast<size_t>(ro), ' '), out;
  for (int64_t k = 0; k < rs; ++k) in_self += letter(k);
  std::vector<bool> contracted(static_cast<size_t>(rs), false);
  for (size_t k = 0; k < ds.size(); ++k) {
    const int64_t a = norm_dim(ds[k], rs), b = norm_dim(dother[k], ro);
    contracted[a] = true;
    in_other[b] = letter(a);
  }
  for (int64_t k = 0; k < rs; ++k)
    if (!contracted[k]) out += letter(k);
  for (int64_t k = 0; k < ro; ++k) {
    if (in_other[k] == ' ') in_other[k] = letter(rs + k);
    if (in_other[k] == letter(rs + k)) out += in_other[k];
  }
  const std::string a = cx.operand("self", work), b = cx.operand("other", work);
  const std::string eq = in_self + "," + in_other + "->" + out;
  cx.out(0, cx.cast(cx.emit1("Einsum", {a, b}, {attr("equation", eq)}), work, dt));
}
MX_ATEN_LOWER(lower_tensordot, "aten.tensordot");

}  // namespace
}  // namespace mx::aten_onnx
