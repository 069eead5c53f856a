// Eigenvalues of small static symmetric matrices (n <= 32, batch dims may
// be dynamic): linalg_eigvalsh, and the eigenvalues of linalg_eigh /
// _linalg_eigh (what eigvalsh is at the core level), by cyclic Jacobi rotations in the round-robin (parallel)
// ordering: each round rotates n/2 disjoint (p, q) pairs at once, J^T A J
// with J built from the rotations' cosines and sines; 6 + ceil(log2 n)
// sweeps of n - 1 (n odd: n) rounds, past the quadratic convergence of the
// off-diagonal for the sizes allowed. Eigenvalues are unique (unlike
// eigenvectors), so the diagonal, sorted ascending, is LAPACK's to
// rounding; the triangle UPLO names is the one read. Eigenvectors are not
// computed: their signs (and the basis of a repeated eigenvalue) are
// LAPACK's arbitrary choice, which an unrolled algorithm would not
// reproduce; a program reading them is refused where it reads them.
#include <algorithm>
#include <cmath>

#include "linalg_steps.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using namespace linalg;

std::string jacobi_eigenvalues(OpContext& cx, const Value& a, int64_t n, const std::string& uplo) {
  const int64_t r = static_cast<int64_t>(a.shape.size());
  const int32_t dt = a.dtype;
  // the symmetric matrix of the triangle read
  std::vector<double> keep, eye;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < n; ++c) {
      keep.push_back(uplo == "L" ? (i >= c ? 1.0 : 0.0) : (i <= c ? 1.0 : 0.0));
      eye.push_back(i == c ? 1.0 : 0.0);
    }
  std::string m =
      cx.emit1("Where", {matrix_const(cx, onnx::TensorProto::BOOL, n, n, keep), a.onnx, mT(cx, a.onnx, r)});
  const std::string identity = matrix_const(cx, dt, n, n, eye);
  auto diagonal = [&](const std::string& x) {  // [..., n]
    return emit_reduce(cx, "ReduceSum", cx.emit1("Mul", {x, identity}), {r - 1}, false);
  };
  if (n > 1) {
    const std::string batch =
        cx.emit1("Slice", {cx.shape_of(a.onnx), cx.ci64({0}), cx.ci64({r - 2}), cx.ci64({0})});
    const std::string matrix_shape = cx.emit1("Concat", {batch, cx.ci64({n, n})}, {attr("axis", int64_t{0})});
    const auto schedule = jacobi_schedule(n);
    const int64_t sweeps = jacobi_sweeps(n);
    for (int64_t sweep = 0; sweep < sweeps; ++sweep)
      for (const auto& pairs : schedule) {
        const JacobiRound jr = jacobi_round(cx, pairs, n, dt);
        const std::vector<int64_t>& ps = jr.p;
        const std::vector<int64_t>& qs = jr.q;
        const std::string d = diagonal(m);
        const std::string app = cx.emit1("Gather", {d, cx.ci64(ps)}, {attr("axis", r - 2)});  // [..., k]
        const std::string aqq = cx.emit1("Gather", {d, cx.ci64(qs)}, {attr("axis", r - 2)});
        const std::string rows_p =
            cx.emit1("Gather", {m, cx.ci64(ps)}, {attr("axis", r - 2)});  // [..., k, n]
        const std::string apq =
            emit_reduce(cx, "ReduceSum", cx.emit1("Mul", {rows_p, jr.pick_q}), {r - 1}, false);
        // the rotation zeroing a_pq (Golub & Van Loan's symmetric Schur 2x2)
        const auto [c, s] = jacobi_rotation(cx, app, aqq, apq, dt);
        const std::string j_flat = jr.rotation(c, s);
        const std::string j_matrix = cx.emit1("Reshape", {j_flat, matrix_shape});
        m = cx.emit1("MatMul", {cx.emit1("MatMul", {mT(cx, j_matrix, r), m}), j_matrix});
      }
  }
  return emit_sort(cx, diagonal(m), dt, r - 1, r - 2, n, false).values;
}

// linalg_eigvalsh(self, UPLO); linalg_eigh(A, UPLO) and _linalg_eigh(A,
// UPLO, compute_v) (core, eigvalsh's too) -> (eigenvalues, eigenvectors):
// the eigenvalues only.
void lower_eigvalsh(OpContext& cx) {
  const Value& a = cx.value_of(cx.has("A") ? "A" : "self");
  const int64_t n = square_size(cx, a, cx.op());
  const std::string uplo = cx.string_arg("UPLO", "L");
  if (uplo != "L" && uplo != "U") cx.unsupported(cx.op() + " with UPLO '" + uplo + "'");
  cx.out(0, jacobi_eigenvalues(cx, a, n, uplo));
  if (cx.n_outputs() > 1)
    cx.leave_uncomputed(
        1, "eigenvectors are not lowered: their signs are arbitrary, LAPACK's cannot be matched");
}
MX_ATEN_LOWER(lower_eigvalsh, "aten.linalg_eigvalsh.default", "aten.linalg_eigh.default",
              "aten._linalg_eigh.default");

}  // namespace
}  // namespace mx::aten_onnx
