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

// The round-robin tournament over n indices: each round's disjoint pairs.
std::vector<std::vector<std::pair<int64_t, int64_t>>> rounds(int64_t n) {
  const int64_t m = n + (n % 2);  // one index sits out a round when n is odd
  std::vector<int64_t> arr;
  for (int64_t i = 0; i < m; ++i) arr.push_back(i);
  std::vector<std::vector<std::pair<int64_t, int64_t>>> out;
  for (int64_t r = 0; r + 1 < m; ++r) {
    std::vector<std::pair<int64_t, int64_t>> pairs;
    for (int64_t k = 0; k < m / 2; ++k) {
      const int64_t p = arr[k], q = arr[m - 1 - k];
      if (p < n && q < n) pairs.emplace_back(std::min(p, q), std::max(p, q));
    }
    out.push_back(pairs);
    std::rotate(arr.begin() + 1, arr.end() - 1, arr.end());
  }
  return out;
}

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
    const std::string zero = cx.cscalar(0.0, dt), one = cx.cscalar(1.0, dt), two = cx.cscalar(2.0, dt),
                      minus_one = cx.cscalar(-1.0, dt);
    const auto schedule = rounds(n);
    const int64_t sweeps = 6 + static_cast<int64_t>(std::ceil(std::log2(static_cast<double>(n))));
    for (int64_t sweep = 0; sweep < sweeps; ++sweep)
      for (const auto& pairs : schedule) {
        const int64_t k = static_cast<int64_t>(pairs.size());
        std::vector<int64_t> ps, qs;
        std::vector<double> pick_q(static_cast<size_t>(k * n), 0.0),
            cos_at(static_cast<size_t>(k * n * n), 0.0), sin_at(static_cast<size_t>(k * n * n), 0.0),
            fixed(static_cast<size_t>(n * n), 0.0);
        std::vector<bool> paired(static_cast<size_t>(n), false);
        for (int64_t j = 0; j < k; ++j) {
          const auto [p, q] = pairs[static_cast<size_t>(j)];
          ps.push_back(p);
          qs.push_back(q);
          paired[static_cast<size_t>(p)] = paired[static_cast<size_t>(q)] = true;
          pick_q[static_cast<size_t>(j * n + q)] = 1.0;
          cos_at[static_cast<size_t>(j * n * n + p * n + p)] = 1.0;
          cos_at[static_cast<size_t>(j * n * n + q * n + q)] = 1.0;
          sin_at[static_cast<size_t>(j * n * n + p * n + q)] = 1.0;
          sin_at[static_cast<size_t>(j * n * n + q * n + p)] = -1.0;
        }
        bool any_fixed = false;
        for (int64_t i = 0; i < n; ++i)
          if (!paired[static_cast<size_t>(i)]) fixed[static_cast<size_t>(i * n + i)] = 1.0, any_fixed = true;
        const std::string d = diagonal(m);
        const std::string app = cx.emit1("Gather", {d, cx.ci64(ps)}, {attr("axis", r - 2)});  // [..., k]
        const std::string aqq = cx.emit1("Gather", {d, cx.ci64(qs)}, {attr("axis", r - 2)});
        const std::string rows_p =
            cx.emit1("Gather", {m, cx.ci64(ps)}, {attr("axis", r - 2)});  // [..., k, n]
        const std::string apq = emit_reduce(
            cx, "ReduceSum", cx.emit1("Mul", {rows_p, matrix_const(cx, dt, k, n, pick_q)}), {r - 1}, false);
        // the rotation zeroing a_pq (Golub & Van Loan's symmetric Schur 2x2)
        const std::string none = cx.emit1("Equal", {apq, zero});
        const std::string tau = cx.emit1(
            "Div",
            {cx.emit1("Sub", {aqq, app}), cx.emit1("Mul", {two, cx.emit1("Where", {none, one, apq})})});
        const std::string sign = cx.emit1("Where", {cx.emit1("Less", {tau, zero}), minus_one, one});
        std::string t = cx.emit1(
            "Div",
            {sign,
             cx.emit1("Add", {cx.emit1("Abs", {tau}),
                              cx.emit1("Sqrt", {cx.emit1("Add", {one, cx.emit1("Mul", {tau, tau})})})})});
        t = cx.emit1("Where", {none, zero, t});
        const std::string c =
            cx.emit1("Div", {one, cx.emit1("Sqrt", {cx.emit1("Add", {one, cx.emit1("Mul", {t, t})})})});
        const std::string s = cx.emit1("Mul", {t, c});
        std::string j_flat =
            cx.emit1("Add", {cx.emit1("MatMul", {c, matrix_const(cx, dt, k, n * n, cos_at)}),
                             cx.emit1("MatMul", {s, matrix_const(cx, dt, k, n * n, sin_at)})});
        if (any_fixed) j_flat = cx.emit1("Add", {j_flat, matrix_const(cx, dt, 1, n * n, fixed)});
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
}
MX_ATEN_LOWER(lower_eigvalsh, "aten.linalg_eigvalsh.default", "aten.linalg_eigh.default",
              "aten._linalg_eigh.default");

}  // namespace
}  // namespace mx::aten_onnx
