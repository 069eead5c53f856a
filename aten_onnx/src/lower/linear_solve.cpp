// General linear systems of small static size (n <= 32, batch dims may be
// dynamic), by Gauss-Jordan elimination with LAPACK's partial pivoting
// unrolled over the columns (linalg_steps.hpp):
// - linalg_inv / inverse / linalg_inv_ex: [A | I] -> [I | A^-1];
// - linalg_solve / linalg_solve_ex / _linalg_solve_ex (core): [A | B] ->
//   [I | X], B a batch of vectors or matrices, left=False by transposes;
// - linalg_slogdet / slogdet / _linalg_slogdet (core) / logdet: the sign
//   and log|.| of the product of the pivots of getrf's LU factorisation
//   (unrolled likewise, lu.cpp), the sign flipped per row swap.
// info (the _ex variants) is LAPACK getrf's: 1 + the first zero pivot,
// 0 for an invertible matrix. For a singular matrix the result is not
// LAPACK's (neither is specified): torch raises there unless asked for
// info, and an ONNX graph cannot raise (the frontend drops torch's error
// check, _linalg_check_errors). _linalg_solve_ex's LU and pivots are not
// computed (Gauss-Jordan makes no LU): a program reading them is refused
// where it reads them.
#include <limits>

#include "linalg_steps.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using namespace linalg;

constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();

// The zero-pivot test compares in the pivots' own dtype.
std::vector<std::string> zero_flags(OnnxEmitter& e, const Elimination& el, int32_t dtype) {
  std::vector<std::string> flags;
  const std::string zero = e.cscalar(0.0, dtype);
  for (const auto& p : el.pivots) flags.push_back(e.emit1("Equal", {p, zero}));
  return flags;
}

// info computed on the broadcast batch of `rank`, cut to A's own batch
// (ra dims): A broadcast against B repeats its own pivots.
std::string info_cut(OnnxEmitter& e, const std::vector<std::string>& flags, int64_t rank,
                     const std::string& a, int64_t ra) {
  std::string info = first_flag_info(e, flags, rank);  // [broadcast batch]
  if (rank == ra) return info;
  std::vector<int64_t> axes, starts;
  for (int64_t k = 0; k < rank - 2; ++k) axes.push_back(k), starts.push_back(0);
  std::vector<std::string> ends = {e.ci64(std::vector<int64_t>(static_cast<size_t>(rank - ra), 1))};
  if (ra > 2) ends.push_back(e.emit1("Slice", {e.shape_of(a), e.ci64({0}), e.ci64({ra - 2}), e.ci64({0})}));
  const std::string end = ends.size() == 1 ? ends[0] : e.emit1("Concat", ends, {attr("axis", int64_t{0})});
  info = e.emit1("Slice", {info, e.ci64(starts), end, e.ci64(axes)});
  std::vector<int64_t> lead;
  for (int64_t k = 0; k < rank - ra; ++k) lead.push_back(k);
  return e.squeeze(info, lead);
}

void bind_info(OpContext& cx, size_t k, const std::vector<std::string>& flags, int64_t rank,
               const std::string& a, int64_t ra) {
  if (cx.n_outputs() > k && cx.output_is_tensor(k)) cx.out(k, info_cut(cx, flags, rank, a, ra));
}

// linalg_inv(A), inverse(self), linalg_inv_ex(A) -> (inverse, info)
void lower_inv(OpContext& cx) {
  const Value& a = cx.value_of(cx.has("A") ? "A" : "self");
  const int64_t n = square_size(cx, a, cx.op());
  const int64_t r = static_cast<int64_t>(a.shape.size());
  const std::string m =
      cx.emit1("Concat", {a.onnx, identity_like(cx, a.onnx, n, a.dtype)}, {attr("axis", r - 1)});
  const Elimination el = gauss_jordan(cx, m, r, n, a.dtype);
  cx.out(0, cols(cx, el.m, r, n, kEnd));
  bind_info(cx, 1, zero_flags(cx, el, a.dtype), r, a.onnx, r);
}
MX_ATEN_LOWER(lower_inv, "aten.linalg_inv.default", "aten.inverse.default", "aten.linalg_inv_ex.default");

// linalg_solve(A, B, left), linalg_solve_ex -> (result, info),
// _linalg_solve_ex -> (result, LU, pivots, info). B is a batch of vectors
// when it has one dim, or one dim less than A and A's shape without its
// last (the result then has one dim less than A's).
void lower_solve(OpContext& cx) {
  const Value& a = cx.value_of("A");
  const Value& b = cx.value_of("B");
  const int64_t n = system_size(cx, a, b, true);
  const bool left = cx.bool_arg("left", true);
  const int64_t ra = static_cast<int64_t>(a.shape.size());
  int64_t rb = static_cast<int64_t>(b.shape.size());
  const bool vector = rb == 1 || (rb == ra - 1 && cx.out_rank(0) == ra - 1);
  std::string am = left ? a.onnx : mT(cx, a.onnx, ra);
  std::string bm = b.onnx;
  if (vector) {
    bm = cx.unsqueeze(bm, {rb});
    ++rb;
  } else if (!left) {
    bm = mT(cx, bm, rb);
  }
  const Broadcast bc = broadcast_batches(cx, am, ra, bm, rb);
  const int64_t r = bc.rank;
  const std::string m = cx.emit1("Concat", {bc.a, bc.b}, {attr("axis", r - 1)});
  const Elimination el = gauss_jordan(cx, m, r, n, a.dtype);
  std::string x = cols(cx, el.m, r, n, kEnd);
  if (vector) x = cx.squeeze(x, {r - 1});
  else if (!left) x = mT(cx, x, r);
  cx.out(0, x);
  bind_info(cx, cx.op() == "_linalg_solve_ex" ? 3 : 1, zero_flags(cx, el, a.dtype), r, a.onnx, ra);
}
MX_ATEN_LOWER(lower_solve, "aten.linalg_solve.default", "aten.linalg_solve_ex.default",
              "aten._linalg_solve_ex.default");

struct SignLog {
  std::string sign, logabs;  // [batch]
  LuFactors lu;
};

std::string along_last(OpContext& cx, const std::vector<std::string>& v, int64_t r) {
  return v.size() == 1 ? v[0] : cx.emit1("Concat", v, {attr("axis", r - 1)});
}

// The sign and log|.| of the product of U's diagonal, the sign flipped per
// row swap (ATen's slogdet over getrf).
SignLog slogdet(OpContext& cx, const Value& a, int64_t n) {
  const int64_t r = static_cast<int64_t>(a.shape.size());
  SignLog out;
  out.lu = lu_factor(cx, a.onnx, r, n, a.dtype);
  const int32_t dt = a.dtype;
  const std::string piv = along_last(cx, out.lu.pivots, r);  // [..., 1, n]
  std::string sign = emit_reduce(cx, "ReduceProd", cx.emit1("Sign", {piv}), {r - 1}, false);
  if (!out.lu.swapped.empty()) {
    const std::string flips =
        cx.emit1("Where", {along_last(cx, out.lu.swapped, r), cx.cscalar(-1.0, dt), cx.cscalar(1.0, dt)});
    sign = cx.emit1("Mul", {sign, emit_reduce(cx, "ReduceProd", flips, {r - 1}, false)});
  }
  const std::string logabs =
      emit_reduce(cx, "ReduceSum", cx.emit1("Log", {cx.emit1("Abs", {piv})}), {r - 1}, false);
  out.sign = cx.squeeze(sign, {r - 2});
  out.logabs = cx.squeeze(logabs, {r - 2});
  return out;
}

// linalg_slogdet(A) / slogdet(self) -> (sign, logabsdet); _linalg_slogdet
// -> (sign, logabsdet, LU, pivots).
void lower_slogdet(OpContext& cx) {
  const Value& a = cx.value_of(cx.has("A") ? "A" : "self");
  const SignLog s = slogdet(cx, a, square_size(cx, a, cx.op()));
  const int64_t r = static_cast<int64_t>(a.shape.size());
  cx.out(0, s.sign);
  cx.out(1, s.logabs);
  if (cx.n_outputs() > 3 && cx.output_is_tensor(2)) cx.out(2, s.lu.lu);
  if (cx.n_outputs() > 3 && cx.output_is_tensor(3)) cx.out(3, lapack_pivots(cx, s.lu, r));
}
MX_ATEN_LOWER(lower_slogdet, "aten.linalg_slogdet.default", "aten.slogdet.default",
              "aten._linalg_slogdet.default");

// logdet(self): log|det| where det > 0, -inf where it is 0, nan where it
// is negative (ATen's decomposition over slogdet).
void lower_logdet(OpContext& cx) {
  const Value& a = cx.value_of("self");
  const SignLog s = slogdet(cx, a, square_size(cx, a, cx.op()));
  const std::string negative = cx.emit1("Less", {s.sign, cx.cscalar(0.0, a.dtype)});
  cx.out(0, cx.emit1("Where",
                     {negative, cx.cscalar(std::numeric_limits<double>::quiet_NaN(), a.dtype), s.logabs}));
}
MX_ATEN_LOWER(lower_logdet, "aten.logdet.default");

}  // namespace
}  // namespace mx::aten_onnx
