// linear, matmul/mm/bmm, addmm/baddbmm, embedding.
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void lower_linear(OpContext& cx) {
  const std::string b = cx.has("bias") ? cx.tensor("bias") : "";
  cx.out(0, mx::aten_onnx::emit_linear(cx, cx.tensor("input"), cx.rank_of("input"), cx.tensor("weight"), b));
}
MX_ATEN_LOWER(lower_linear, "aten.linear");

void lower_matmul(OpContext& cx) {
  const bool is_mm = cx.target().rfind("aten.matmul", 0) != 0;
  cx.out(0, cx.emit1("MatMul", {cx.tensor("self"), cx.tensor(is_mm ? "mat2" : "other")}));
}
MX_ATEN_LOWER(lower_matmul, "aten.matmul", "aten.mm", "aten.bmm");

// addmm(self, mat1, mat2, beta=1, alpha=1) = beta*self + alpha*(mat1 @ mat2)
void lower_addmm(OpContext& cx) {
  const float beta = static_cast<float>(cx.float_arg("beta", 1.0)),
              alpha = static_cast<float>(cx.float_arg("alpha", 1.0));
  cx.out(0, cx.emit1("Gemm", {cx.tensor("mat1"), cx.tensor("mat2"), cx.tensor("self")},
                     {attr("alpha", alpha), attr("beta", beta)}));
}
MX_ATEN_LOWER(lower_addmm, "aten.addmm");

void lower_baddbmm(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const double beta = cx.float_arg("beta", 1.0), alpha = cx.float_arg("alpha", 1.0);
  std::string p = cx.emit1("MatMul", {cx.tensor("batch1"), cx.tensor("batch2")});
  if (alpha != 1.0) p = cx.emit1("Mul", {p, cx.cscalar(alpha, dt)});
  if (beta == 0.0) return cx.out(0, p);
  std::string i = cx.tensor("self");
  if (beta != 1.0) i = cx.emit1("Mul", {i, cx.cscalar(beta, dt)});
  cx.out(0, cx.emit1("Add", {i, p}));
}
MX_ATEN_LOWER(lower_baddbmm, "aten.baddbmm");

void lower_embedding(OpContext& cx) {
  cx.out(0, cx.emit1("Gather", {cx.tensor("weight"), cx.tensor("indices")}, {attr("axis", int64_t{0})}));
}
MX_ATEN_LOWER(lower_embedding, "aten.embedding");

}  // namespace
}  // namespace mx::aten_onnx
