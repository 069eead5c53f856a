// QR of small static matrices (min(m, n) <= 32, batch dims may be
// dynamic) as LAPACK computes it for such sizes (geqr2 + org2r, the
// unblocked forms): one Householder reflector per column, dlarfg's
// conventions (beta = -sign(alpha) |x|, tau = (beta - alpha) / beta,
// v = x / (alpha - beta) under a unit head; no reflection, tau = 0, when
// the column below the diagonal is zero), so R's signs are LAPACK's and Q
// its product of reflectors.
// - linalg_qr(A, mode): 'reduced', 'complete' or 'r' (Q empty: refused
//   if read);
// - linalg_householder_product(input, tau): Q from geqrf's packed
//   reflectors (org2r); ormqr(input, tau, C, left, transpose): Q or Q^T
//   applied to C from either side (orm2r).
#include <algorithm>
#include <functional>

#include "linalg_steps.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using namespace linalg;

struct Reflector {
  std::string v;    // [..., m, 1], zero above row j, 1 at row j
  std::string tau;  // [..., 1, 1]
};

// The static [rows, cols] of a matrix argument, refused unless static.
std::pair<int64_t, int64_t> static_matrix(OpContext& cx, const Value& a, const std::string& op) {
  if (a.dtype != onnx::TensorProto::FLOAT && a.dtype != onnx::TensorProto::DOUBLE)
    cx.unsupported(op + " of " + dtype_name(a.dtype) + " (float32 and float64 only)");
  const size_t r = a.shape.size();
  if (r < 2) cx.unsupported(op + " of a tensor of rank " + std::to_string(r) + " (a matrix needs 2 dims)");
  for (size_t k : {r - 2, r - 1})
    if (!a.shape[k].is_static)
      cx.unsupported(op +
                     " needs a static matrix size: ONNX has no QR and the Householder steps are unrolled "
                     "over the columns (got the dynamic size " +
                     (a.shape[k].symbol.empty() ? a.shape[k].expr : a.shape[k].symbol) + ")");
  const int64_t m = a.shape[r - 2].value, n = a.shape[r - 1].value;
  if (std::min(m, n) < 1 || std::min(m, n) > kMaxUnrolled)
    cx.unsupported(
        op + " of a " + std::to_string(m) + "x" + std::to_string(n) +
        " matrix: ONNX has no QR and the Householder steps are unrolled for a smaller dimension of 1 "
        "to " +
        std::to_string(kMaxUnrolled) + " only");
  return {m, n};
}

std::string row_mask(OpContext& cx, int64_t m, const std::function<bool(int64_t)>& pred) {
  std::vector<double> v;
  for (int64_t i = 0; i < m; ++i) v.push_back(pred(i) ? 1.0 : 0.0);
  return matrix_const(cx, onnx::TensorProto::BOOL, m, 1, v);
}

// H = I - tau v v^T applied to x ([..., m, c]) from the left.
std::string reflect(OpContext& cx, const Reflector& h, const std::string& x, int64_t r) {
  const std::string vtx = cx.emit1("MatMul", {mT(cx, h.v, r), x});  // [..., 1, c]
  return cx.emit1("Sub", {x, cx.emit1("Mul", {h.tau, cx.emit1("MatMul", {h.v, vtx})})});
}

// Q's first `cols` columns (m x cols) from the reflectors (org2r).
std::string form_q(OpContext& cx, const std::vector<Reflector>& hs, const std::string& like, int64_t r,
                   int64_t m, int64_t cols, int32_t dt) {
  std::vector<double> eye;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t c = 0; c < cols; ++c) eye.push_back(i == c ? 1.0 : 0.0);
  // I expanded to the batch: Shape(like)[:-2] ++ [m, cols]
  const std::string batch =
      cx.emit1("Slice", {cx.shape_of(like), cx.ci64({0}), cx.ci64({r - 2}), cx.ci64({0})});
  std::string q =
      cx.emit1("Expand", {matrix_const(cx, dt, m, cols, eye),
                          cx.emit1("Concat", {batch, cx.ci64({m, cols})}, {attr("axis", int64_t{0})})});
  for (auto it = hs.rbegin(); it != hs.rend(); ++it) q = reflect(cx, *it, q, r);
  return q;
}

// linalg_qr(A, mode) -> (Q, R)
void lower_qr(OpContext& cx) {
  const Value& a = cx.value_of("A");
  const auto [m, n] = static_matrix(cx, a, cx.op());
  const std::string mode = cx.string_arg("mode", "reduced");
  if (mode != "reduced" && mode != "complete" && mode != "r")
    cx.unsupported(cx.op() + " with mode '" + mode + "'");
  const int64_t r = static_cast<int64_t>(a.shape.size());
  const int32_t dt = a.dtype;
  const int64_t k = std::min(m, n);
  const std::string zero = cx.cscalar(0.0, dt), one = cx.cscalar(1.0, dt);
  std::string x = a.onnx;
  std::vector<Reflector> hs;
  for (int64_t j = 0; j < k; ++j) {
    if (j == m - 1) {  // a 1-element column: dlarfg makes no reflection (H = I, tau = 0)
      hs.push_back({"", ""});
      break;
    }
    const std::string col = cols(cx, x, r, j, j + 1);      // [..., m, 1]
    const std::string alpha = rows(cx, col, r, j, j + 1);  // [..., 1, 1]
    const std::string below = row_mask(cx, m, [j](int64_t i) { return i > j; });
    const std::string tail = cx.emit1("Where", {below, col, zero});
    const std::string xnorm2 = emit_reduce(cx, "ReduceSum", cx.emit1("Mul", {tail, tail}), {r - 2}, true);
    const std::string none = cx.emit1("Equal", {xnorm2, zero});
    const std::string norm = cx.emit1("Sqrt", {cx.emit1("Add", {cx.emit1("Mul", {alpha, alpha}), xnorm2})});
    const std::string sign = cx.emit1("Where", {cx.emit1("Less", {alpha, zero}), cx.cscalar(-1.0, dt), one});
    const std::string beta =
        cx.emit1("Where", {none, alpha, cx.emit1("Neg", {cx.emit1("Mul", {sign, norm})})});  // R[j, j]
    const std::string safe_beta = cx.emit1("Where", {none, one, beta});
    const std::string tau =
        cx.emit1("Where", {none, zero, cx.emit1("Div", {cx.emit1("Sub", {beta, alpha}), safe_beta})});
    const std::string scale = cx.emit1("Where", {none, one, cx.emit1("Sub", {alpha, beta})});
    const std::string head = row_mask(cx, m, [j](int64_t i) { return i == j; });
    const Reflector h{cx.emit1("Where", {head, one, cx.emit1("Div", {tail, scale})}), tau};
    hs.push_back(h);
    // the trailing columns reflected; column j becomes beta e_j
    const std::string reflected = reflect(cx, h, x, r);
    std::vector<double> after;
    for (int64_t c = 0; c < n; ++c) after.push_back(c > j ? 1.0 : 0.0);
    const std::string right = matrix_const(cx, onnx::TensorProto::BOOL, 1, n, after);
    const std::string above = row_mask(cx, m, [j](int64_t i) { return i < j; });
    const std::string new_col = cx.emit1("Where", {above, col, cx.emit1("Where", {head, beta, zero})});
    std::vector<double> at_j;
    for (int64_t c = 0; c < n; ++c) at_j.push_back(c == j ? 1.0 : 0.0);
    const std::string is_col_j = matrix_const(cx, onnx::TensorProto::BOOL, 1, n, at_j);
    x = cx.emit1("Where", {right, reflected, cx.emit1("Where", {is_col_j, new_col, x})});
  }
  std::vector<Reflector> real;
  for (const auto& h : hs)
    if (!h.v.empty()) real.push_back(h);
  const bool complete = mode == "complete";
  // R: the upper triangle of the first k (complete: m) rows
  const int64_t r_rows = complete ? m : k;
  std::vector<double> upper;
  for (int64_t i = 0; i < r_rows; ++i)
    for (int64_t c = 0; c < n; ++c) upper.push_back(c >= i ? 1.0 : 0.0);
  const std::string r_out = cx.emit1("Where", {matrix_const(cx, onnx::TensorProto::BOOL, r_rows, n, upper),
                                               rows(cx, x, r, 0, r_rows), zero});
  if (mode != "r") cx.out(0, form_q(cx, real, a.onnx, r, m, complete ? m : k, dt));
  cx.out(1, r_out);
}
MX_ATEN_LOWER(lower_qr, "aten.linalg_qr.default");

// The k reflectors stored below the diagonal of `a` ([..., m, n]) with
// their taus ([..., k]).
std::vector<Reflector> packed_reflectors(OpContext& cx, const Value& a, const Value& t, int64_t m,
                                         int64_t k) {
  const int64_t r = static_cast<int64_t>(a.shape.size());
  const std::string zero = cx.cscalar(0.0, a.dtype), one = cx.cscalar(1.0, a.dtype);
  std::vector<Reflector> hs;
  for (int64_t j = 0; j < k; ++j) {
    const std::string col = cols(cx, a.onnx, r, j, j + 1);
    const std::string below = row_mask(cx, m, [j](int64_t i) { return i > j; });
    const std::string head = row_mask(cx, m, [j](int64_t i) { return i == j; });
    const std::string v = cx.emit1("Where", {head, one, cx.emit1("Where", {below, col, zero})});
    const std::string tau =
        cx.unsqueeze(cx.emit1("Slice", {t.onnx, cx.ci64({j}), cx.ci64({j + 1}), cx.ci64({r - 2})}),
                     {r - 1});  // [..., 1, 1]
    hs.push_back({v, tau});
  }
  return hs;
}

// linalg_householder_product(input [..., m, n], tau [..., k]): Q's first
// n columns from the reflectors stored below input's diagonal (v_j's head
// is 1, not stored), H_j = I - tau_j v_j v_j^T.
void lower_householder_product(OpContext& cx) {
  const Value& a = cx.value_of("input");
  const Value& t = cx.value_of("tau");
  const auto [m, n] = static_matrix(cx, a, cx.op());
  const int64_t r = static_cast<int64_t>(a.shape.size());
  if (t.shape.size() + 1 != a.shape.size() || !t.shape.back().is_static)
    cx.unsupported(cx.op() + " of a tau that is not [..., k] with k static");
  if (t.dtype != a.dtype)
    cx.unsupported(cx.op() + " of " + dtype_name(a.dtype) + " and " + dtype_name(t.dtype));
  const int64_t k = t.shape.back().value;
  if (k > n || n > m) cx.unsupported(cx.op() + " with more reflectors than columns or columns than rows");
  cx.out(0, form_q(cx, packed_reflectors(cx, a, t, m, k), a.onnx, r, m, n, a.dtype));
}
MX_ATEN_LOWER(lower_householder_product, "aten.linalg_householder_product.default");

// ormqr(self = packed reflectors [..., m, n], input2 = tau [..., k],
// input3 = C, left, transpose): Q C, Q^T C, C Q or C Q^T with Q = H_1 ..
// H_k (orm2r), applied reflector by reflector.
void lower_ormqr(OpContext& cx) {
  const Value& a = cx.value_of("self");
  const Value& t = cx.value_of("input2");
  const Value& c = cx.value_of("input3");
  const auto [m, n] = static_matrix(cx, a, cx.op());
  const int64_t r = static_cast<int64_t>(a.shape.size());
  if (t.shape.size() + 1 != a.shape.size() || !t.shape.back().is_static)
    cx.unsupported(cx.op() + " of a tau that is not [..., k] with k static");
  if (t.dtype != a.dtype || c.dtype != a.dtype) cx.unsupported(cx.op() + " of mixed dtypes");
  if (c.shape.size() != a.shape.size())
    cx.unsupported(cx.op() + " of C with another rank than the reflectors");
  const int64_t k = t.shape.back().value;
  if (k > std::min(m, n)) cx.unsupported(cx.op() + " with more reflectors than the matrix has columns");
  const bool left = cx.bool_arg("left", true), transpose = cx.bool_arg("transpose", false);
  const auto hs = packed_reflectors(cx, a, t, m, k);
  // C Q = (Q^T C^T)^T, C Q^T = (Q C^T)^T
  std::string x = left ? c.onnx : mT(cx, c.onnx, r);
  const bool q_transposed = left ? transpose : !transpose;
  if (q_transposed)  // Q^T x = H_k .. H_1 x
    for (const auto& h : hs) x = reflect(cx, h, x, r);
  else  // Q x = H_1 .. H_k x
    for (auto it = hs.rbegin(); it != hs.rend(); ++it) x = reflect(cx, *it, x, r);
  cx.out(0, left ? x : mT(cx, x, r));
}
MX_ATEN_LOWER(lower_ormqr, "aten.ormqr.default");

}  // namespace
}  // namespace mx::aten_onnx
