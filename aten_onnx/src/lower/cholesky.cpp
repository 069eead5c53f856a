// Cholesky factorisation and the solves through it, for small static sizes
// (n <= 32, batch dims may be dynamic), unrolled over the columns
// (linalg_steps.hpp):
// - linalg_cholesky / cholesky / linalg_cholesky_ex: the column algorithm,
//   reading A's lower triangle (upper=True: its upper one, as LAPACK's
//   potrf with uplo 'U', the factor returned transposed);
// - cholesky_solve(B, L): L Y = B then L^H X = Y (U^H U with upper=True);
// - cholesky_inverse(L): cholesky_solve of the identity.
// info (linalg_cholesky_ex) is potrf's: 1 + the first column whose
// diagonal is not positive (or nan), 0 for a positive-definite matrix. The
// factor of a matrix that is not positive-definite is nan from that column
// on (LAPACK leaves it partly computed; neither is specified); torch raises
// there unless asked for info, an ONNX graph cannot (the frontend drops
// torch's error check, _linalg_check_errors).
#include "linalg_steps.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"

namespace mx::aten_onnx {
namespace {

using namespace linalg;

// linalg_cholesky(A, upper), cholesky(self, upper), linalg_cholesky_ex(A,
// upper) -> (L, info)
void lower_cholesky(OpContext& cx) {
  const Value& a = cx.value_of(cx.has("A") ? "A" : "self");
  const int64_t n = square_size(cx, a, cx.op());
  const int64_t r = static_cast<int64_t>(a.shape.size());
  const bool upper = cx.bool_arg("upper", false);
  const Cholesky c = cholesky_lower(cx, upper ? mT(cx, a.onnx, r) : a.onnx, r, n, a.dtype);
  cx.out(0, upper ? mT(cx, c.l, r) : c.l);
  if (cx.n_outputs() > 1 && cx.output_is_tensor(1)) cx.out(1, first_flag_info(cx, c.not_positive, r));
}
MX_ATEN_LOWER(lower_cholesky, "aten.linalg_cholesky.default", "aten.cholesky.default",
              "aten.linalg_cholesky_ex.default");

// A X = B for A = L L^H (or U^H U): two triangular solves.
std::string solve_factored(OpContext& cx, const std::string& factor, int64_t rf, const std::string& b,
                           int64_t rb, int64_t n, bool upper) {
  const Broadcast bc = broadcast_batches(cx, factor, rf, b, rb);
  const int64_t r = bc.rank;
  const std::string lower = upper ? mT(cx, bc.a, r) : bc.a;
  const std::string upper_f = upper ? bc.a : mT(cx, bc.a, r);
  const std::string y = triangular_substitution(cx, lower, bc.b, r, n, false, false);
  return triangular_substitution(cx, upper_f, y, r, n, true, false);
}

// cholesky_solve(self = B, input2 = L, upper)
void lower_cholesky_solve(OpContext& cx) {
  const Value& b = cx.value_of("self");
  const Value& l = cx.value_of("input2");
  const int64_t n = system_size(cx, l, b);
  cx.out(0, solve_factored(cx, l.onnx, static_cast<int64_t>(l.shape.size()), b.onnx,
                           static_cast<int64_t>(b.shape.size()), n, cx.bool_arg("upper", false)));
}
MX_ATEN_LOWER(lower_cholesky_solve, "aten.cholesky_solve.default");

// cholesky_inverse(self = L, upper): (L L^H)^-1
void lower_cholesky_inverse(OpContext& cx) {
  const Value& l = cx.value_of("self");
  const int64_t n = square_size(cx, l, cx.op());
  const int64_t r = static_cast<int64_t>(l.shape.size());
  cx.out(0, solve_factored(cx, l.onnx, r, identity_like(cx, l.onnx, n, l.dtype), r, n,
                           cx.bool_arg("upper", false)));
}
MX_ATEN_LOWER(lower_cholesky_inverse, "aten.cholesky_inverse.default");

}  // namespace
}  // namespace mx::aten_onnx
