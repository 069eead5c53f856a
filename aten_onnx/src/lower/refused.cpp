// Core ATen ops refused by design, each with the reason and what the user
// can do. They are registered (not missing): the error names the node and
// module and says why, instead of "no lowering".
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void refuse_training_batch_norm(OpContext& cx) {
  cx.unsupported(
      "batch norm in training mode (batch statistics, running-stat updates): the model was exported "
      "in train mode - call model.eval() before torch.export");
}
MX_ATEN_LOWER(refuse_training_batch_norm, "aten._native_batch_norm_legit.default",
              "aten._native_batch_norm_legit_functional");

// ---- torch.linalg: what has no faithful ONNX form. Solvers for small
// static matrices are unrolled (linear_solve.cpp, cholesky.cpp,
// triangular_solve.cpp); the iterative decompositions below are not:
// LAPACK's results depend on its choice of signs, orders and convergence
// (an eigenvector or singular vector is defined up to sign, a QR factor up
// to the signs of its columns), which an unrolled algorithm in ONNX would
// not reproduce, and ONNX has no decomposition operator.
[[noreturn]] void refuse_linalg(OpContext& cx, const std::string& why) {
  cx.unsupported(cx.op() + ": " + why +
                 " - compute it outside the exported model or replace it before torch.export");
}

void refuse_eig(OpContext& cx) {
  refuse_linalg(
      cx,
      "the eigendecomposition of a general matrix has complex eigenvalues and eigenvectors and no ONNX "
      "operator");
}
MX_ATEN_LOWER(refuse_eig, "aten.linalg_eig", "aten.linalg_eigvals");

void refuse_geqrf(OpContext& cx) {
  refuse_linalg(
      cx,
      "geqrf's packed reflectors are not lowered (linalg_qr, householder_product and ormqr are: export "
      "the model with linalg_qr)");
}
MX_ATEN_LOWER(refuse_geqrf, "aten.geqrf");

void refuse_lstsq(OpContext& cx) {
  refuse_linalg(
      cx,
      "least squares (QR or SVD based, with a rank decision) has no ONNX operator and its LAPACK driver's "
      "result is not reproducible by an unrolled algorithm");
}
MX_ATEN_LOWER(refuse_lstsq, "aten.linalg_lstsq");

void refuse_pinv(OpContext& cx) {
  refuse_linalg(
      cx,
      "the pseudo-inverse needs the singular vectors, which have no ONNX operator and whose signs are "
      "LAPACK's arbitrary choice (the singular values alone are lowered)");
}
MX_ATEN_LOWER(refuse_pinv, "aten.linalg_pinv", "aten.pinverse");

void refuse_svd_based(OpContext& cx) {
  refuse_linalg(
      cx,
      "the fused op is not lowered: export after ep.run_decompositions(), whose form of it computes "
      "from the singular values (lowered)");
}
MX_ATEN_LOWER(refuse_svd_based, "aten.linalg_matrix_rank", "aten.linalg_cond");

void refuse_ldl(OpContext& cx) {
  refuse_linalg(
      cx,
      "the LDL factorisation (Bunch-Kaufman pivoting with 1x1 and 2x2 blocks) has no ONNX operator and is "
      "not unrolled");
}
MX_ATEN_LOWER(refuse_ldl, "aten.linalg_ldl_factor", "aten.linalg_ldl_factor_ex", "aten.linalg_ldl_solve");

}  // namespace
}  // namespace mx::aten_onnx
