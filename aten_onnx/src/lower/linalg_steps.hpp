// Dense linear algebra written out as ONNX ops on batches of small static
// matrices (linear_solve.cpp, cholesky.cpp, triangular_solve.cpp): ONNX
// has no solver, so each algorithm is unrolled over the n columns of an
// n x n matrix (n static, at most kMaxUnrolled), every step one ONNX
// expression on the whole batch [..., n, m] (batch dims may be dynamic).
// Values are [..., rows, cols] tensors of `rank`; rows are axis rank-2,
// columns axis rank-1.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mx/aten_onnx/op_context.hpp"

namespace mx::aten_onnx::linalg {

// The largest matrix size unrolled: each column costs ~15 nodes.
constexpr int64_t kMaxUnrolled = 32;

// The static size n of the square matrices of `a` ([..., n, n], float32 or
// float64); anything else is refused naming `op`.
int64_t square_size(OpContext& cx, const Value& a, const std::string& op);
// The same for a system with right-hand side `b`, which must also have a's
// dtype and, unless `vectors` allows a batch of vectors, at least 2 dims.
int64_t system_size(OpContext& cx, const Value& a, const Value& b, bool vectors = false);

// A constant [rows, cols] tensor of `dtype` (float, double, int64, bool).
std::string matrix_const(OnnxEmitter& e, int32_t dtype, int64_t rows, int64_t cols,
                         const std::vector<double>& values);
// x[..., r0:r1, c0:c1] (the last two axes of a tensor of `rank`).
std::string block(OnnxEmitter& e, const std::string& x, int64_t rank, int64_t r0, int64_t r1, int64_t c0,
                  int64_t c1);
std::string rows(OnnxEmitter& e, const std::string& x, int64_t rank, int64_t r0, int64_t r1);
std::string cols(OnnxEmitter& e, const std::string& x, int64_t rank, int64_t c0, int64_t c1);
// The last two axes swapped.
std::string mT(OnnxEmitter& e, const std::string& x, int64_t rank);
// a and b (of ranks ra, rb) expanded to their common batch dims, each
// keeping its own last two; returns them and the common rank.
struct Broadcast {
  std::string a, b;
  int64_t rank;
};
Broadcast broadcast_batches(OnnxEmitter& e, const std::string& a, int64_t ra, const std::string& b,
                            int64_t rb);
// The n x n identity expanded to the batch of `like` ([..., n, n]).
std::string identity_like(OnnxEmitter& e, const std::string& like, int64_t n, int32_t dtype);

// Gauss-Jordan elimination with partial pivoting (LAPACK's getrf choice of
// pivot: the first row of largest |a| at or below the diagonal) on
// m = [A | B] ([..., n, n + k]): afterwards m = [I | A^-1 B]. A zero pivot
// (only when its whole column below is zero) divides by 1 instead, so the
// later pivots are still those of getrf.
struct Elimination {
  std::string m;
  std::vector<std::string> pivots;   // U[j, j]: [..., 1, 1]
  std::vector<std::string> swapped;  // row j swapped with a row below: bool [..., 1, 1]
};
Elimination gauss_jordan(OnnxEmitter& e, const std::string& m, int64_t rank, int64_t n, int32_t dtype);

// LU factorisation with partial pivoting as LAPACK's getf2: at step j the
// row of largest |a| at or below the diagonal (the first on a tie) is
// swapped in (whole rows), the column below divided by the pivot (not when
// it is zero: the column is zero then) and the trailing block updated.
// lu packs L (unit diagonal, below) and U; pivots[j] is U[j, j]
// ([..., 1, 1]); rows[j] the 0-based row swapped with row j (int64
// [..., 1, 1]); perm[i] the row of A that ends in row i (int64 [..., n, 1]:
// P^T A = L U).
struct LuFactors {
  std::string lu, perm;
  std::vector<std::string> pivots, rows, swapped;
};
LuFactors lu_factor(OnnxEmitter& e, const std::string& a, int64_t rank, int64_t n, int32_t dtype);
// getrf's 1-based pivots of `lu`, int32 [..., n].
std::string lapack_pivots(OnnxEmitter& e, const LuFactors& lu, int64_t rank);
// The row permutation getrf's 1-based pivots (int32 [..., n]) make: perm[i]
// as in LuFactors.
std::string perm_of_pivots(OnnxEmitter& e, const std::string& pivots, int64_t rank, int64_t n);
// P ([..., n, n] of `dtype`, P[r, c] = perm[c] == r) of a perm ([..., n, 1]).
std::string permutation_matrix(OnnxEmitter& e, const std::string& perm, int64_t rank, int64_t n,
                               int32_t dtype);

// LAPACK's info: 1 + the first j whose flag ([..., 1, 1] bool) is set,
// 0 when none is; int32 of the batch dims ([...]).
std::string first_flag_info(OnnxEmitter& e, const std::vector<std::string>& flags, int64_t rank);

// Solves A X = B for triangular A ([..., n, n]) and B ([..., n, k], same
// batch) by forward (lower) or back (upper) substitution, reading only
// A's triangle (and not its diagonal when unit).
std::string triangular_substitution(OnnxEmitter& e, const std::string& a, const std::string& b, int64_t rank,
                                    int64_t n, bool upper, bool unit);

// The Cholesky factor L (A = L L^H, lower) of [..., n, n] by the column
// algorithm, reading A's lower triangle; the flags of its steps whose
// diagonal was not positive (for info).
struct Cholesky {
  std::string l;
  std::vector<std::string> not_positive;  // bool [..., 1, 1] per column
};
Cholesky cholesky_lower(OnnxEmitter& e, const std::string& a, int64_t rank, int64_t n, int32_t dtype);

// ---- Jacobi rotations (eigh.cpp, svd.cpp)
using JacobiPairs = std::vector<std::pair<int64_t, int64_t>>;
// The round-robin (parallel) ordering over n indices: each round's
// disjoint (p < q) pairs, every pair once per sweep.
std::vector<JacobiPairs> jacobi_schedule(int64_t n);
// Sweeps run: past the quadratic convergence of cyclic Jacobi for n <= 32.
int64_t jacobi_sweeps(int64_t n);
// The constants of one round: its pairs' indices, a [k, n] one-hot of each
// q, and the rotation J ([..., n * n], J[p,p] = J[q,q] = c, J[p,q] = s,
// J[q,p] = -s, 1 on the diagonal of an index sitting out) of the pairs'
// cosines and sines ([..., k]).
struct JacobiRound {
  std::vector<int64_t> p, q;
  std::string pick_q;
  std::string rotation(const std::string& c, const std::string& s) const;

  OnnxEmitter* e = nullptr;
  std::string cos_at, sin_at, fixed;  // fixed: "" when every index is paired
};
JacobiRound jacobi_round(OnnxEmitter& e, const JacobiPairs& pairs, int64_t n, int32_t dtype);
// (c, s) of the rotation that zeroes the off-diagonal of the symmetric
// [[app, apq], [apq, aqq]] (Golub & Van Loan's symmetric Schur 2x2):
// tau = (aqq - app) / 2 apq, t = sign(tau) / (|tau| + sqrt(1 + tau^2)),
// c = 1 / sqrt(1 + t^2), s = t c; none (c = 1) where apq is 0.
std::pair<std::string, std::string> jacobi_rotation(OnnxEmitter& e, const std::string& app,
                                                    const std::string& aqq, const std::string& apq,
                                                    int32_t dtype);

}  // namespace mx::aten_onnx::linalg
