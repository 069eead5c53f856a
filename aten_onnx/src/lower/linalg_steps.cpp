// Unrolled dense linear algebra on batches of small static matrices
// (linalg_steps.hpp).
#include "linalg_steps.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx::linalg {

int64_t square_size(OpContext& cx, const Value& a, const std::string& op) {
  if (a.dtype != onnx::TensorProto::FLOAT && a.dtype != onnx::TensorProto::DOUBLE)
    cx.unsupported(op + " of " + dtype_name(a.dtype) + " (float32 and float64 only)");
  const size_t r = a.shape.size();
  if (r < 2) cx.unsupported(op + " of a tensor of rank " + std::to_string(r) + " (a matrix needs 2 dims)");
  const Dim& rows = a.shape[r - 2];
  const Dim& cols = a.shape[r - 1];
  for (const Dim* d : {&rows, &cols})
    if (!d->is_static)
      cx.unsupported(op +
                     " needs a static matrix size: ONNX has no linear-algebra solver and the "
                     "algorithm is unrolled over the matrix's columns (got the dynamic size " +
                     (d->symbol.empty() ? d->expr : d->symbol) + ")");
  if (rows.value != cols.value)
    cx.unsupported(op + " of a " + std::to_string(rows.value) + "x" + std::to_string(cols.value) +
                   " matrix (square matrices only)");
  if (rows.value < 1 || rows.value > kMaxUnrolled)
    cx.unsupported(op + " of a " + std::to_string(rows.value) + "x" + std::to_string(rows.value) +
                   " matrix: ONNX has no linear-algebra solver and the algorithm is unrolled over the "
                   "columns for sizes 1 to " +
                   std::to_string(kMaxUnrolled) + " only");
  return rows.value;
}

int64_t system_size(OpContext& cx, const Value& a, const Value& b, bool vectors) {
  const int64_t n = square_size(cx, a, cx.op());
  if (b.dtype != a.dtype)
    cx.unsupported(cx.op() + " of " + dtype_name(a.dtype) + " and " + dtype_name(b.dtype));
  if (!vectors && b.shape.size() < 2)
    cx.unsupported(cx.op() + " of a right-hand side with fewer than 2 dims");
  return n;
}

std::string matrix_const(OnnxEmitter& e, int32_t dtype, int64_t nrows, int64_t ncols,
                         const std::vector<double>& values) {
  onnx::TensorProto t;
  t.set_data_type(dtype);
  t.add_dims(nrows);
  t.add_dims(ncols);
  for (double v : values) {
    switch (dtype) {
      case onnx::TensorProto::FLOAT:
        t.add_float_data(static_cast<float>(v));
        break;
      case onnx::TensorProto::DOUBLE:
        t.add_double_data(v);
        break;
      case onnx::TensorProto::INT64:
        t.add_int64_data(static_cast<int64_t>(v));
        break;
      case onnx::TensorProto::BOOL:
        t.add_int32_data(v != 0 ? 1 : 0);
        break;
      default:
        throw std::logic_error("matrix_const: unsupported dtype");
    }
  }
  return e.constant(t);
}

std::string block(OnnxEmitter& e, const std::string& x, int64_t rank, int64_t r0, int64_t r1, int64_t c0,
                  int64_t c1) {
  return e.emit1("Slice", {x, e.ci64({r0, c0}), e.ci64({r1, c1}), e.ci64({rank - 2, rank - 1})});
}

std::string rows(OnnxEmitter& e, const std::string& x, int64_t rank, int64_t r0, int64_t r1) {
  return e.emit1("Slice", {x, e.ci64({r0}), e.ci64({r1}), e.ci64({rank - 2})});
}

std::string cols(OnnxEmitter& e, const std::string& x, int64_t rank, int64_t c0, int64_t c1) {
  return e.emit1("Slice", {x, e.ci64({c0}), e.ci64({c1}), e.ci64({rank - 1})});
}

std::string mT(OnnxEmitter& e, const std::string& x, int64_t rank) {
  std::vector<int64_t> perm;
  for (int64_t k = 0; k < rank - 2; ++k) perm.push_back(k);
  perm.push_back(rank - 1);
  perm.push_back(rank - 2);
  return e.transpose(x, perm);
}

namespace {

// Shape(x)[:rank-2] ++ [1, 1]: what Expand broadcasts another value's batch
// dims to, keeping that value's own matrix dims.
std::string batch_then_ones(OnnxEmitter& e, const std::string& x, int64_t rank) {
  const std::string batch = e.emit1("Slice", {e.shape_of(x), e.ci64({0}), e.ci64({rank - 2}), e.ci64({0})});
  return e.emit1("Concat", {batch, e.ci64({1, 1})}, {attr("axis", int64_t{0})});
}

std::vector<double> eye(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i * n + i)] = 1.0;
  return v;
}

// A [n, 1] column whose row i holds pred(i).
std::string row_flags(OnnxEmitter& e, int64_t n, int32_t dtype, const std::function<double(int64_t)>& pred) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(pred(i));
  return matrix_const(e, dtype, n, 1, v);
}

}  // namespace

Broadcast broadcast_batches(OnnxEmitter& e, const std::string& a, int64_t ra, const std::string& b,
                            int64_t rb) {
  Broadcast out{a, b, std::max(ra, rb)};
  if (rb > 2) out.a = e.emit1("Expand", {a, batch_then_ones(e, b, rb)});
  if (ra > 2) out.b = e.emit1("Expand", {b, batch_then_ones(e, a, ra)});
  return out;
}

std::string identity_like(OnnxEmitter& e, const std::string& like, int64_t n, int32_t dtype) {
  return e.emit1("Expand", {matrix_const(e, dtype, n, n, eye(n)), e.shape_of(like)});
}

namespace {

// 0 .. n-1 as a column, int64 [n, 1].
std::string row_numbers(OnnxEmitter& e, int64_t n) {
  std::vector<double> iota;
  for (int64_t i = 0; i < n; ++i) iota.push_back(static_cast<double>(i));
  return matrix_const(e, onnx::TensorProto::INT64, n, 1, iota);
}

// The transposition of rows j and p ([..., 1, 1] int64) as a gather order:
// row i reads row order[i] ([..., n, 1]).
std::string transposition(OnnxEmitter& e, int64_t n, int64_t j, const std::string& p) {
  const std::string rows = row_numbers(e, n), cj = e.ci64s(j);
  const std::string is_j = row_flags(e, n, onnx::TensorProto::BOOL, [j](int64_t i) { return i == j; });
  return e.emit1("Where", {is_j, p, e.emit1("Where", {e.emit1("Equal", {rows, p}), cj, rows})});
}

// Partial pivoting at step j, as LAPACK's: the row of largest |a| in
// column j at or below row j (the first on a tie), [..., 1, 1] int64.
std::string pivot_row(OnnxEmitter& e, const std::string& m, int64_t rank, int64_t n, int64_t j) {
  const std::string below = block(e, m, rank, j, n, j, j + 1);  // [..., n - j, 1]
  const std::string p =
      e.emit1("ArgMax", {e.emit1("Abs", {below})}, {attr("axis", rank - 2), attr("keepdims", int64_t{1})});
  return j > 0 ? e.emit1("Add", {p, e.ci64s(j)}) : p;
}

// Rows j and p of m exchanged: row i reads row order[i] ([..., n, 1]).
struct RowExchange {
  std::string m, order, swapped;  // swapped: p != j, bool [..., 1, 1]
};
RowExchange exchange_rows(OnnxEmitter& e, const std::string& m, int64_t rank, int64_t n, int64_t j,
                          const std::string& p) {
  const std::string order = transposition(e, n, j, p);
  return {e.emit1("GatherElements", {m, e.emit1("Expand", {order, e.shape_of(m)})}, {attr("axis", rank - 2)}),
          order, e.emit1("Not", {e.emit1("Equal", {p, e.ci64s(j)})})};
}

}  // namespace

Elimination gauss_jordan(OnnxEmitter& e, const std::string& m0, int64_t rank, int64_t n, int32_t dtype) {
  Elimination out;
  std::string m = m0;
  const std::string zero = e.cscalar(0.0, dtype), one = e.cscalar(1.0, dtype);
  for (int64_t j = 0; j < n; ++j) {
    const std::string is_j = row_flags(e, n, onnx::TensorProto::BOOL, [j](int64_t i) { return i == j; });
    if (j + 1 < n) {
      const RowExchange x = exchange_rows(e, m, rank, n, j, pivot_row(e, m, rank, n, j));
      m = x.m;
      out.swapped.push_back(x.swapped);
    }
    const std::string prow = rows(e, m, rank, j, j + 1);    // [..., 1, n + k]
    const std::string piv = cols(e, prow, rank, j, j + 1);  // [..., 1, 1]
    out.pivots.push_back(piv);
    const std::string safe = e.emit1("Where", {e.emit1("Equal", {piv, zero}), one, piv});
    const std::string unit_row = e.emit1("Div", {prow, safe});
    const std::string col = cols(e, m, rank, j, j + 1);  // [..., n, 1]
    const std::string eliminated = e.emit1("Sub", {m, e.emit1("Mul", {col, unit_row})});
    m = e.emit1("Where", {is_j, unit_row, eliminated});
  }
  out.m = m;
  return out;
}

LuFactors lu_factor(OnnxEmitter& e, const std::string& a, int64_t rank, int64_t n, int32_t dtype) {
  LuFactors out;
  std::string m = a;
  const std::string zero = e.cscalar(0.0, dtype), one = e.cscalar(1.0, dtype);
  for (int64_t j = 0; j < n; ++j) {
    const std::string p = pivot_row(e, m, rank, n, j);
    out.rows.push_back(p);  // the last is j itself, with the batch dims
    if (j + 1 < n) {
      const RowExchange x = exchange_rows(e, m, rank, n, j, p);
      m = x.m;
      out.perm = j == 0 ? x.order : e.emit1("GatherElements", {out.perm, x.order}, {attr("axis", rank - 2)});
      out.swapped.push_back(x.swapped);
    }
    const std::string prow = rows(e, m, rank, j, j + 1);  // [..., 1, n]
    const std::string piv = cols(e, prow, rank, j, j + 1);
    out.pivots.push_back(piv);
    if (j + 1 == n) break;
    const std::string safe = e.emit1("Where", {e.emit1("Equal", {piv, zero}), one, piv});
    const std::string below_j = row_flags(e, n, onnx::TensorProto::BOOL, [j](int64_t i) { return i > j; });
    std::vector<double> right;
    for (int64_t c = 0; c < n; ++c) right.push_back(c > j ? 1.0 : 0.0);
    const std::string right_of_j = matrix_const(e, onnx::TensorProto::BOOL, 1, n, right);
    const std::string mult = e.emit1("Div", {cols(e, m, rank, j, j + 1), safe});  // [..., n, 1]
    const std::string update =
        e.emit1("Mul", {e.emit1("Where", {below_j, mult, zero}), e.emit1("Where", {right_of_j, prow, zero})});
    std::vector<double> col_j;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = 0; c < n; ++c) col_j.push_back(i > j && c == j ? 1.0 : 0.0);
    const std::string multipliers = matrix_const(e, onnx::TensorProto::BOOL, n, n, col_j);
    m = e.emit1("Where", {multipliers, mult, e.emit1("Sub", {m, update})});
  }
  out.lu = m;
  if (n == 1) out.perm = out.rows[0];  // [..., 1, 1]: row 0
  return out;
}

std::string lapack_pivots(OnnxEmitter& e, const LuFactors& lu, int64_t rank) {
  const std::string all =
      lu.rows.size() == 1 ? lu.rows[0] : e.emit1("Concat", lu.rows, {attr("axis", rank - 1)});
  const std::string one_based = e.emit1("Add", {all, e.ci64s(1)});  // [..., 1, n]
  return e.cast(e.squeeze(one_based, {rank - 2}), onnx::TensorProto::INT64, onnx::TensorProto::INT32);
}

std::string perm_of_pivots(OnnxEmitter& e, const std::string& pivots, int64_t rank, int64_t n) {
  const std::string zero_based =
      e.emit1("Sub", {e.cast(pivots, onnx::TensorProto::INT32, onnx::TensorProto::INT64), e.ci64s(1)});
  std::string perm;
  for (int64_t j = 0; j < n; ++j) {
    const std::string p =
        e.unsqueeze(e.emit1("Slice", {zero_based, e.ci64({j}), e.ci64({j + 1}), e.ci64({rank - 2})}),
                    {rank - 1});  // [..., 1, 1]
    const std::string idx = transposition(e, n, j, p);
    perm = j == 0 ? idx : e.emit1("GatherElements", {perm, idx}, {attr("axis", rank - 2)});
  }
  return perm;
}

std::string permutation_matrix(OnnxEmitter& e, const std::string& perm, int64_t rank, int64_t n,
                               int32_t dtype) {
  return e.cast(e.emit1("Equal", {row_numbers(e, n), mT(e, perm, rank)}), onnx::TensorProto::BOOL, dtype);
}

std::string first_flag_info(OnnxEmitter& e, const std::vector<std::string>& flags, int64_t rank) {
  std::string all = flags.size() == 1 ? flags[0] : e.emit1("Concat", flags, {attr("axis", rank - 1)});
  all = e.cast(all, onnx::TensorProto::BOOL, onnx::TensorProto::FLOAT);  // [..., 1, n]
  const std::string first = e.emit1("ArgMax", {all}, {attr("axis", rank - 1), attr("keepdims", int64_t{0})});
  const std::string any = e.cast(emit_reduce(e, "ReduceMax", all, {rank - 1}, false),
                                 onnx::TensorProto::FLOAT, onnx::TensorProto::INT64);
  const std::string info = e.emit1("Mul", {e.emit1("Add", {first, e.ci64s(1)}), any});  // [..., 1]
  return e.cast(e.squeeze(info, {rank - 2}), onnx::TensorProto::INT64, onnx::TensorProto::INT32);
}

std::string triangular_substitution(OnnxEmitter& e, const std::string& a, const std::string& b, int64_t rank,
                                    int64_t n, bool upper, bool unit) {
  std::string xs;  // the solved rows so far, in order
  for (int64_t s = 0; s < n; ++s) {
    const int64_t i = upper ? n - 1 - s : s;
    std::string bi = rows(e, b, rank, i, i + 1);  // [..., 1, k]
    if (s > 0) {
      const std::string ai =
          upper ? block(e, a, rank, i, i + 1, i + 1, n) : block(e, a, rank, i, i + 1, 0, i);
      bi = e.emit1("Sub", {bi, e.emit1("MatMul", {ai, xs})});
    }
    if (!unit) bi = e.emit1("Div", {bi, block(e, a, rank, i, i + 1, i, i + 1)});
    if (s == 0) xs = bi;
    else
      xs = e.emit1("Concat", upper ? std::vector<std::string>{bi, xs} : std::vector<std::string>{xs, bi},
                   {attr("axis", rank - 2)});
  }
  return xs;
}

Cholesky cholesky_lower(OnnxEmitter& e, const std::string& a, int64_t rank, int64_t n, int32_t dtype) {
  Cholesky out;
  const std::string zero = e.cscalar(0.0, dtype);
  std::string l;  // the columns so far: [..., n, j]
  for (int64_t j = 0; j < n; ++j) {
    std::string v = cols(e, a, rank, j, j + 1);  // [..., n, 1]
    if (j > 0) {
      const std::string lj = rows(e, l, rank, j, j + 1);  // [..., 1, j]
      v = e.emit1("Sub", {v, emit_reduce(e, "ReduceSum", e.emit1("Mul", {l, lj}), {rank - 1}, true)});
    }
    const std::string d = rows(e, v, rank, j, j + 1);  // [..., 1, 1]
    out.not_positive.push_back(e.emit1("Not", {e.emit1("Greater", {d, zero})}));
    const std::string ljj = e.emit1("Sqrt", {d});
    const std::string below = row_flags(e, n, onnx::TensorProto::BOOL, [j](int64_t i) { return i > j; });
    const std::string diag = row_flags(e, n, onnx::TensorProto::BOOL, [j](int64_t i) { return i == j; });
    const std::string c =
        e.emit1("Where", {below, e.emit1("Div", {v, ljj}), e.emit1("Where", {diag, ljj, zero})});
    l = j == 0 ? c : e.emit1("Concat", {l, c}, {attr("axis", rank - 1)});
  }
  out.l = l;
  return out;
}

std::vector<JacobiPairs> jacobi_schedule(int64_t n) {
  const int64_t m = n + (n % 2);  // one index sits out each round when n is odd
  std::vector<int64_t> arr;
  for (int64_t i = 0; i < m; ++i) arr.push_back(i);
  std::vector<JacobiPairs> out;
  for (int64_t r = 0; r + 1 < m; ++r) {
    JacobiPairs pairs;
    for (int64_t k = 0; k < m / 2; ++k) {
      const int64_t p = arr[static_cast<size_t>(k)], q = arr[static_cast<size_t>(m - 1 - k)];
      if (p < n && q < n) pairs.emplace_back(std::min(p, q), std::max(p, q));
    }
    out.push_back(pairs);
    std::rotate(arr.begin() + 1, arr.end() - 1, arr.end());
  }
  return out;
}

int64_t jacobi_sweeps(int64_t n) {
  return 6 + static_cast<int64_t>(std::ceil(std::log2(static_cast<double>(std::max<int64_t>(n, 2)))));
}

JacobiRound jacobi_round(OnnxEmitter& e, const JacobiPairs& pairs, int64_t n, int32_t dtype) {
  JacobiRound jr;
  jr.e = &e;
  const int64_t k = static_cast<int64_t>(pairs.size());
  auto at = [](int64_t i) { return static_cast<size_t>(i); };
  std::vector<double> pick_q(at(k * n), 0.0), cos_at(at(k * n * n), 0.0), sin_at(at(k * n * n), 0.0),
      fixed(at(n * n), 0.0);
  std::vector<bool> paired(at(n), false);
  for (int64_t j = 0; j < k; ++j) {
    const auto [p, q] = pairs[at(j)];
    jr.p.push_back(p);
    jr.q.push_back(q);
    paired[at(p)] = paired[at(q)] = true;
    pick_q[at(j * n + q)] = 1.0;
    cos_at[at(j * n * n + p * n + p)] = 1.0;
    cos_at[at(j * n * n + q * n + q)] = 1.0;
    sin_at[at(j * n * n + p * n + q)] = 1.0;
    sin_at[at(j * n * n + q * n + p)] = -1.0;
  }
  bool any_fixed = false;
  for (int64_t i = 0; i < n; ++i)
    if (!paired[at(i)]) fixed[at(i * n + i)] = 1.0, any_fixed = true;
  jr.pick_q = matrix_const(e, dtype, k, n, pick_q);
  jr.cos_at = matrix_const(e, dtype, k, n * n, cos_at);
  jr.sin_at = matrix_const(e, dtype, k, n * n, sin_at);
  if (any_fixed) jr.fixed = matrix_const(e, dtype, 1, n * n, fixed);
  return jr;
}

std::string JacobiRound::rotation(const std::string& c, const std::string& s) const {
  // each entry of J is one product (the others are exact zeros): J is exact
  std::string j = e->emit1("Add", {e->emit1("MatMul", {c, cos_at}), e->emit1("MatMul", {s, sin_at})});
  if (!fixed.empty()) j = e->emit1("Add", {j, fixed});
  return j;
}

std::pair<std::string, std::string> jacobi_rotation(OnnxEmitter& e, const std::string& app,
                                                    const std::string& aqq, const std::string& apq,
                                                    int32_t dtype) {
  const std::string zero = e.cscalar(0.0, dtype), one = e.cscalar(1.0, dtype), two = e.cscalar(2.0, dtype);
  const std::string none = e.emit1("Equal", {apq, zero});
  const std::string tau =
      e.emit1("Div", {e.emit1("Sub", {aqq, app}), e.emit1("Mul", {two, e.emit1("Where", {none, one, apq})})});
  const std::string sign = e.emit1("Where", {e.emit1("Less", {tau, zero}), e.cscalar(-1.0, dtype), one});
  const std::string root = e.emit1("Sqrt", {e.emit1("Add", {one, e.emit1("Mul", {tau, tau})})});
  std::string t = e.emit1("Div", {sign, e.emit1("Add", {e.emit1("Abs", {tau}), root})});
  t = e.emit1("Where", {none, zero, t});
  const std::string c =
      e.emit1("Div", {one, e.emit1("Sqrt", {e.emit1("Add", {one, e.emit1("Mul", {t, t})})})});
  return {c, e.emit1("Mul", {t, c})};
}

}  // namespace mx::aten_onnx::linalg
