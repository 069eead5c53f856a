// LU factorisation with partial pivoting of small static square matrices
// (n <= 32, batch dims may be dynamic), unrolled as LAPACK's getf2
// (linalg_steps.hpp), and what reads it:
// - linalg_lu_factor / linalg_lu_factor_ex (core): the packed factors,
//   getrf's 1-based pivots and info (1 + the first zero pivot);
// - linalg_lu: P, L, U with A = P L U;
// - lu_unpack(LU, pivots): P, L, U from the packed form, the pivots read
//   at run time;
// - linalg_lu_solve(LU, pivots, B, left, adjoint): P^T, then the unit
//   lower and the upper triangular solves (transposed for adjoint).
// Rectangular matrices are refused (square_size).
#include "linalg_steps.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"

namespace mx::aten_onnx {
namespace {

using namespace linalg;

void require_pivoting(OpContext& cx) {
  if (!cx.bool_arg("pivot", true))
    cx.unsupported(cx.op() + " without pivoting (ATen has no CPU kernel for it)");
}

// L (unit diagonal) and U of a packed [..., n, n].
std::pair<std::string, std::string> unpack(OpContext& cx, const std::string& lu, int64_t n, int32_t dtype) {
  std::vector<double> strict_lower, upper, eye;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < n; ++c) {
      strict_lower.push_back(i > c ? 1.0 : 0.0);
      upper.push_back(i <= c ? 1.0 : 0.0);
      eye.push_back(i == c ? 1.0 : 0.0);
    }
  const std::string l = cx.emit1("Where", {matrix_const(cx, onnx::TensorProto::BOOL, n, n, strict_lower), lu,
                                           matrix_const(cx, dtype, n, n, eye)});
  const std::string u =
      cx.emit1("Where", {matrix_const(cx, onnx::TensorProto::BOOL, n, n, upper), lu, cx.cscalar(0.0, dtype)});
  return {l, u};
}

// linalg_lu_factor(A, pivot) -> (LU, pivots); linalg_lu_factor_ex -> (LU,
// pivots, info)
void lower_lu_factor(OpContext& cx) {
  const Value& a = cx.value_of("A");
  const int64_t n = square_size(cx, a, cx.op());
  require_pivoting(cx);
  const int64_t r = static_cast<int64_t>(a.shape.size());
  const LuFactors lu = lu_factor(cx, a.onnx, r, n, a.dtype);
  cx.out(0, lu.lu);
  cx.out(1, lapack_pivots(cx, lu, r));
  if (cx.n_outputs() > 2 && cx.output_is_tensor(2)) {
    std::vector<std::string> flags;
    const std::string zero = cx.cscalar(0.0, a.dtype);
    for (const auto& p : lu.pivots) flags.push_back(cx.emit1("Equal", {p, zero}));
    cx.out(2, first_flag_info(cx, flags, r));
  }
}
MX_ATEN_LOWER(lower_lu_factor, "aten.linalg_lu_factor.default", "aten.linalg_lu_factor_ex.default");

// Binds (P, L, U) of the packed factors `lu` ([..., n, n] of rank r) and
// their row permutation `perm` ([..., n, 1]).
void bind_plu(OpContext& cx, const std::string& lu, const std::string& perm, int64_t r, int64_t n,
              int32_t dtype) {
  const auto [l, u] = unpack(cx, lu, n, dtype);
  cx.out(0, permutation_matrix(cx, perm, r, n, dtype));
  cx.out(1, l);
  cx.out(2, u);
}

// getrf's pivots as linalg_lu_factor gives them: int32.
void require_int32_pivots(OpContext& cx, const Value& pivots) {
  if (pivots.dtype != onnx::TensorProto::INT32) cx.unsupported(cx.op() + " of pivots that are not int32");
}

// linalg_lu(A, pivot) -> (P, L, U)
void lower_lu(OpContext& cx) {
  const Value& a = cx.value_of("A");
  const int64_t n = square_size(cx, a, cx.op());
  require_pivoting(cx);
  const int64_t r = static_cast<int64_t>(a.shape.size());
  const LuFactors lu = lu_factor(cx, a.onnx, r, n, a.dtype);
  bind_plu(cx, lu.lu, lu.perm, r, n, a.dtype);
}
MX_ATEN_LOWER(lower_lu, "aten.linalg_lu.default");

// lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots) -> (P, L, U)
void lower_lu_unpack(OpContext& cx) {
  const Value& lu = cx.value_of("LU_data");
  const Value& piv = cx.value_of("LU_pivots");
  const int64_t n = square_size(cx, lu, cx.op());
  if (!cx.bool_arg("unpack_data", true) || !cx.bool_arg("unpack_pivots", true))
    cx.unsupported(cx.op() + " with unpack_data or unpack_pivots False (empty outputs)");
  require_int32_pivots(cx, piv);
  const int64_t r = static_cast<int64_t>(lu.shape.size());
  bind_plu(cx, lu.onnx, perm_of_pivots(cx, piv.onnx, r, n), r, n, lu.dtype);
}
MX_ATEN_LOWER(lower_lu_unpack, "aten.lu_unpack.default");

// linalg_lu_solve(LU, pivots, B, left, adjoint): A = P L U; A X = B is
// X = U^-1 L^-1 P^T B, A^T X = B is X = P L^-T U^-T B; X A = B (left
// False) is A^T X^T = B^T.
void lower_lu_solve(OpContext& cx) {
  const Value& lu = cx.value_of("LU");
  const Value& piv = cx.value_of("pivots");
  const Value& b = cx.value_of("B");
  const int64_t n = system_size(cx, lu, b);
  require_int32_pivots(cx, piv);
  const bool left = cx.bool_arg("left", true);
  const bool transposed = cx.bool_arg("adjoint", false) != !left;
  const int64_t rl = static_cast<int64_t>(lu.shape.size());
  const int64_t rb = static_cast<int64_t>(b.shape.size());
  const std::string p = permutation_matrix(cx, perm_of_pivots(cx, piv.onnx, rl, n), rl, n, lu.dtype);
  const Broadcast bc = broadcast_batches(cx, lu.onnx, rl, left ? b.onnx : mT(cx, b.onnx, rb), rb);
  const int64_t r = bc.rank;
  std::string x;
  if (!transposed) {
    const std::string pb = cx.emit1("MatMul", {mT(cx, p, rl), bc.b});
    x = triangular_substitution(cx, bc.a, pb, r, n, false, true);
    x = triangular_substitution(cx, bc.a, x, r, n, true, false);
  } else {
    const std::string at = mT(cx, bc.a, r);  // U^T (lower), L^T (upper, unit)
    x = triangular_substitution(cx, at, bc.b, r, n, false, false);
    x = triangular_substitution(cx, at, x, r, n, true, true);
    x = cx.emit1("MatMul", {p, x});
  }
  cx.out(0, left ? x : mT(cx, x, r));
}
MX_ATEN_LOWER(lower_lu_solve, "aten.linalg_lu_solve.default");

}  // namespace
}  // namespace mx::aten_onnx
