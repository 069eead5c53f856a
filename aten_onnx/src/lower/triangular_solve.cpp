// Triangular systems of small static size (n <= 32, batch dims may be
// dynamic) by forward / back substitution unrolled over the rows
// (linalg_steps.hpp), reading only the triangle the op names (and not the
// diagonal when it is unit):
// - linalg_solve_triangular(A, B, upper, left, unitriangular); left=False
//   (X A = B) solves A^T X^T = B^T;
// - triangular_solve(b, A, upper, transpose, unitriangular) -> (solution,
//   A broadcast to the batch: torch's cloned_coefficient).
#include "linalg_steps.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"

namespace mx::aten_onnx {
namespace {

using namespace linalg;

// Solves op(A) X = B with op(A) = A^T when `transposed`; returns X and the
// broadcast A.
std::pair<std::string, std::string> solve(OpContext& cx, const Value& a, const Value& b, bool upper,
                                          bool transposed, bool unit) {
  const int64_t n = system_size(cx, a, b);
  const int64_t ra = static_cast<int64_t>(a.shape.size()), rb = static_cast<int64_t>(b.shape.size());
  const Broadcast bc = broadcast_batches(cx, a.onnx, ra, b.onnx, rb);
  const std::string am = transposed ? mT(cx, bc.a, bc.rank) : bc.a;
  return {triangular_substitution(cx, am, bc.b, bc.rank, n, upper != transposed, unit), bc.a};
}

// linalg_solve_triangular(self = A, B, *, upper, left, unitriangular)
void lower_solve_triangular(OpContext& cx) {
  const Value& a = cx.value_of("self");
  const Value& b = cx.value_of("B");
  const bool upper = cx.bool_arg("upper"), unit = cx.bool_arg("unitriangular", false);
  if (cx.bool_arg("left", true)) {
    cx.out(0, solve(cx, a, b, upper, false, unit).first);
    return;
  }
  // X A = B  <=>  A^T X^T = B^T
  if (b.shape.size() < 2) cx.unsupported(cx.op() + " of a right-hand side with fewer than 2 dims");
  Value bt = b;
  const int64_t rb = static_cast<int64_t>(b.shape.size());
  bt.onnx = mT(cx, b.onnx, rb);
  std::swap(bt.shape[rb - 1], bt.shape[rb - 2]);
  const std::string x = solve(cx, a, bt, upper, true, unit).first;
  cx.out(0, mT(cx, x, cx.out_rank(0)));
}
MX_ATEN_LOWER(lower_solve_triangular, "aten.linalg_solve_triangular.default");

// triangular_solve(self = b, A, upper, transpose, unitriangular)
void lower_triangular_solve(OpContext& cx) {
  const auto [x, a] = solve(cx, cx.value_of("A"), cx.value_of("self"), cx.bool_arg("upper", true),
                            cx.bool_arg("transpose", false), cx.bool_arg("unitriangular", false));
  cx.out(0, x);
  if (cx.n_outputs() > 1 && cx.output_is_tensor(1)) cx.out(1, a);
}
MX_ATEN_LOWER(lower_triangular_solve, "aten.triangular_solve.default");

}  // namespace
}  // namespace mx::aten_onnx
