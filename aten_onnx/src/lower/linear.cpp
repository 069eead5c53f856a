// linear, matmul/mm/bmm, dot/vdot/mv, addmm/baddbmm/addmv/addr, multi_dot and
// matrix_power, embedding.
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void lower_linear(OpContext& cx) {
  const std::string b = cx.has("bias") ? cx.tensor("bias") : "";
  cx.out(0, mx::aten_onnx::emit_linear(cx, cx.tensor("input"), cx.rank_of("input"), cx.tensor("weight"), b));
}
MX_ATEN_LOWER(lower_linear, "aten.linear");

// A matrix (or a batch of them) times a 1-D vector as MatMul against the
// vector made a column, squeezed back: ONNX Runtime (1.31, 1.32) fuses a
// Transpose feeding MatMul's first input into FusedMatMul(transA), which
// computes a wrong result when the second input is 1-D (`m.t() @ v`).
std::string matrix_vector(OpContext& cx, const std::string& m, const std::string& v) {
  return cx.squeeze(cx.emit1("MatMul", {m, cx.unsqueeze(v, {-1})}), {-1});
}

void lower_matmul(OpContext& cx) {
  const bool is_mm = cx.target().rfind("aten.matmul", 0) != 0;
  const char* other = is_mm ? "mat2" : "other";
  if (!is_mm && cx.rank_of("other") == 1 && cx.rank_of("self") >= 2)
    return cx.out(0, matrix_vector(cx, cx.tensor("self"), cx.tensor("other")));
  cx.out(0, cx.emit1("MatMul", {cx.tensor("self"), cx.tensor(other)}));
}
MX_ATEN_LOWER(lower_matmul, "aten.matmul", "aten.mm", "aten.bmm");

// dot / vdot(self, other) of 1-D real tensors (vdot's conjugation is the
// identity for them; complex inputs reach the complex lowerings): the sum
// of the products, a 0-d tensor, for every dtype MatMul lacks as well.
void lower_dot(OpContext& cx) {
  const char* other = cx.op() == "dot" ? "tensor" : "other";  // ATen's argument names
  if (cx.rank_of("self") != 1 || cx.rank_of(other) != 1)
    cx.unsupported(cx.op() + " of tensors that are not 1-D");
  const int32_t dt = cx.out_dtype();
  const std::string prod = cx.emit1("Mul", {cx.operand("self", dt), cx.operand(other, dt)});
  cx.out(0, cx.emit1("ReduceSum", {prod}, {attr("keepdims", int64_t{0})}));
}
MX_ATEN_LOWER(lower_dot, "aten.dot", "aten.vdot");

// mv(self, vec): a 2-D matrix times a 1-D vector - numpy's MatMul.
void lower_mv(OpContext& cx) {
  if (cx.rank_of("self") != 2 || cx.rank_of("vec") != 1)
    cx.unsupported("mv of a tensor that is not 2-D by 1-D");
  const int32_t dt = cx.out_dtype();
  cx.out(0, matrix_vector(cx, cx.operand("self", dt), cx.operand("vec", dt)));
}
MX_ATEN_LOWER(lower_mv, "aten.mv");

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

// beta * self + alpha * product, as ATen: beta 0 ignores self (NaN too).
std::string scaled_sum(OpContext& cx, std::string product, int32_t dt) {
  const double beta = cx.float_arg("beta", 1.0), alpha = cx.float_arg("alpha", 1.0);
  if (alpha != 1.0) product = cx.emit1("Mul", {product, cx.cscalar(alpha, dt)});
  if (beta == 0.0) return product;
  std::string i = cx.operand("self", dt);
  if (beta != 1.0) i = cx.emit1("Mul", {i, cx.cscalar(beta, dt)});
  return cx.emit1("Add", {i, product});
}

// addmv(self, mat, vec, beta=1, alpha=1) = beta*self + alpha*(mat @ vec)
void lower_addmv(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, scaled_sum(cx, matrix_vector(cx, cx.operand("mat", dt), cx.operand("vec", dt)), dt));
}
MX_ATEN_LOWER(lower_addmv, "aten.addmv");

// addr(self, vec1, vec2, beta=1, alpha=1) = beta*self + alpha*outer(vec1, vec2)
void lower_addr(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string outer =
      cx.emit1("Mul", {cx.unsqueeze(cx.operand("vec1", dt), {1}), cx.unsqueeze(cx.operand("vec2", dt), {0})});
  cx.out(0, scaled_sum(cx, outer, dt));
}
MX_ATEN_LOWER(lower_addr, "aten.addr");

// linalg_multi_dot(tensors): the chain of products, left to right (ATen
// picks the cheapest order; the values differ by rounding only). A 1-D
// first or last operand is a row or column vector, as MatMul takes it.
void lower_multi_dot(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::vector<const Value*> in = cx.tensor_list("tensors");
  if (in.size() < 2) cx.unsupported("linalg_multi_dot of fewer than two tensors");
  std::string p = cx.cast(in[0]->onnx, in[0]->dtype, dt);
  for (size_t k = 1; k < in.size(); ++k) p = cx.emit1("MatMul", {p, cx.cast(in[k]->onnx, in[k]->dtype, dt)});
  cx.out(0, p);
}
MX_ATEN_LOWER(lower_multi_dot, "aten.linalg_multi_dot");

// linalg_matrix_power(self, n) for n >= 0: squarings and products (n = 0:
// the identity, broadcast over the batch). A negative n needs an inverse,
// which ONNX has no op for.
void lower_matrix_power(OpContext& cx) {
  const int64_t n = cx.int_arg("n");
  if (n < 0) cx.unsupported("linalg_matrix_power with a negative n (a matrix inverse)");
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  const int64_t r = cx.rank_of("self");
  if (n == 0) {
    const std::string idx = cx.emit1("Range", {cx.ci64s(0), cx.dim_size(x, r - 1), cx.ci64s(1)});
    const std::string ident = cx.emit1(
        "Where", {cx.emit1("Equal", {idx, cx.unsqueeze(idx, {1})}), cx.cscalar(1, dt), cx.cscalar(0, dt)});
    return cx.out(0, cx.emit1("Expand", {ident, cx.shape_of(x)}));
  }
  std::string result, power = x;
  for (int64_t k = n; k > 0; k >>= 1) {
    if (k & 1) result = result.empty() ? power : cx.emit1("MatMul", {result, power});
    if (k > 1) power = cx.emit1("MatMul", {power, power});
  }
  cx.out(0, result);
}
MX_ATEN_LOWER(lower_matrix_power, "aten.linalg_matrix_power", "aten.matrix_power");

void lower_embedding(OpContext& cx) {
  cx.out(0, cx.emit1("Gather", {cx.tensor("weight"), cx.tensor("indices")}, {attr("axis", int64_t{0})}));
}
MX_ATEN_LOWER(lower_embedding, "aten.embedding");

}  // namespace
}  // namespace mx::aten_onnx
