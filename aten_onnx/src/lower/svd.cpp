// Singular values of small static matrices (min(m, n) <= 32, batch dims
// may be dynamic): linalg_svdvals, and the S of linalg_svd / _linalg_svd
// (what svdvals, matrix_rank and cond are at the core level) / svd, by
// one-sided (Hestenes) Jacobi: the columns of A (of A^T when it is wide)
// are orthogonalised pairwise in the round-robin ordering, A J per round,
// J the rotation that diagonalises each pair's Gram block (linalg_steps.hpp);
// the singular values are the column norms, sorted descending. They are
// unique, so this is LAPACK's to rounding, small ones included (the Gram
// matrix A^T A is never formed). U and V are not computed: their signs
// (and the basis of a repeated singular value) are LAPACK's arbitrary
// choice; a program reading them is refused where it reads them.
#include "linalg_steps.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using namespace linalg;

void lower_singular_values(OpContext& cx) {
  const Value& a = cx.value_of(cx.has("A") ? "A" : "self");
  const std::string op = cx.op();
  if (a.dtype != onnx::TensorProto::FLOAT && a.dtype != onnx::TensorProto::DOUBLE)
    cx.unsupported(op + " of " + dtype_name(a.dtype) + " (float32 and float64 only)");
  const int64_t r = static_cast<int64_t>(a.shape.size());
  if (r < 2) cx.unsupported(op + " of a tensor of rank " + std::to_string(r) + " (a matrix needs 2 dims)");
  for (int64_t k : {r - 2, r - 1}) {
    const Dim& d = a.shape[static_cast<size_t>(k)];
    if (!d.is_static)
      cx.unsupported(op +
                     " needs a static matrix size: ONNX has no singular value decomposition and the "
                     "Jacobi sweeps are unrolled over the matrix's columns (got the dynamic size " +
                     (d.symbol.empty() ? d.expr : d.symbol) + ")");
  }
  const int64_t rows = a.shape[static_cast<size_t>(r - 2)].value,
                cols = a.shape[static_cast<size_t>(r - 1)].value;
  const bool wide = cols > rows;
  const int64_t n = wide ? rows : cols;  // the columns orthogonalised
  if (n < 1 || n > kMaxUnrolled)
    cx.unsupported(
        op + " of a " + std::to_string(rows) + "x" + std::to_string(cols) +
        " matrix: ONNX has no singular value decomposition and the Jacobi sweeps are unrolled for a "
        "smaller dimension of 1 to " +
        std::to_string(kMaxUnrolled) + " only");
  const int32_t dt = a.dtype;
  std::string m = wide ? mT(cx, a.onnx, r) : a.onnx;  // [..., rows', n]
  auto squared_norms = [&](const std::string& x) {    // of the columns: [..., n]
    return emit_reduce(cx, "ReduceSum", cx.emit1("Mul", {x, x}), {r - 2}, false);
  };
  if (n > 1) {
    const std::string batch =
        cx.emit1("Slice", {cx.shape_of(m), cx.ci64({0}), cx.ci64({r - 2}), cx.ci64({0})});
    const std::string j_shape = cx.emit1("Concat", {batch, cx.ci64({n, n})}, {attr("axis", int64_t{0})});
    const auto schedule = jacobi_schedule(n);
    const int64_t sweeps = jacobi_sweeps(n);
    for (int64_t sweep = 0; sweep < sweeps; ++sweep)
      for (const auto& pairs : schedule) {
        const JacobiRound jr = jacobi_round(cx, pairs, n, dt);
        const std::string cp =
            cx.emit1("Gather", {m, cx.ci64(jr.p)}, {attr("axis", r - 1)});  // [..., rows', k]
        const std::string cq = cx.emit1("Gather", {m, cx.ci64(jr.q)}, {attr("axis", r - 1)});
        const std::string app = squared_norms(cp), aqq = squared_norms(cq);  // [..., k]
        const std::string apq = emit_reduce(cx, "ReduceSum", cx.emit1("Mul", {cp, cq}), {r - 2}, false);
        const auto [c, s] = jacobi_rotation(cx, app, aqq, apq, dt);
        m = cx.emit1("MatMul", {m, cx.emit1("Reshape", {jr.rotation(c, s), j_shape})});
      }
  }
  const std::string sigma = cx.emit1("Sqrt", {squared_norms(m)});
  cx.out(op == "linalg_svdvals" ? 0 : 1, emit_sort(cx, sigma, dt, r - 1, r - 2, n, true).values);
  if (op != "linalg_svdvals")
    for (size_t k : {size_t{0}, size_t{2}})
      cx.leave_uncomputed(
          k, "singular vectors are not lowered: their signs are arbitrary, LAPACK's cannot be matched");
}
MX_ATEN_LOWER(lower_singular_values, "aten.linalg_svdvals.default", "aten.linalg_svd.default",
              "aten._linalg_svd.default", "aten.svd.default");

}  // namespace
}  // namespace mx::aten_onnx
