// Core ATen ops refused by design, each with the reason and what the user
// can do. They are registered (not missing): the error names the node and
// module and says why, instead of "no lowering".
#include <map>
#include <string>

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

// ---- torch.linalg: what has no faithful ONNX form. Small static
// matrices are solved, factored and decomposed by unrolled steps
// (linear_solve.cpp, lu.cpp, cholesky.cpp, triangular_solve.cpp, qr.cpp,
// eigh.cpp, svd.cpp); what stays refused has complex results, needs
// vectors defined only up to sign (LAPACK's choice, which an unrolled
// algorithm would not reproduce), or has a pivoting no step here follows.
const std::map<std::string, std::string>& linalg_refusals() {
  static const std::map<std::string, std::string> why = [] {
    const std::string eig =
        "the eigendecomposition of a general matrix has complex eigenvalues and eigenvectors and no ONNX "
        "operator";
    const std::string svd_based =
        "the fused op is not lowered: export after ep.run_decompositions(), whose form of it computes "
        "from the singular values (lowered)";
    const std::string pinv =
        "the pseudo-inverse needs the singular vectors, which have no ONNX operator and whose signs are "
        "LAPACK's arbitrary choice (the singular values alone are lowered)";
    const std::string ldl =
        "the LDL factorisation (Bunch-Kaufman pivoting with 1x1 and 2x2 blocks) has no ONNX operator and is "
        "not unrolled";
    return std::map<std::string, std::string>{
        {"linalg_eig", eig},
        {"linalg_eigvals", eig},
        {"geqrf",
         "geqrf's packed reflectors are not lowered (linalg_qr, householder_product and ormqr are: export "
         "the model with linalg_qr)"},
        {"linalg_lstsq",
         "least squares (QR or SVD based, with a rank decision) has no ONNX operator and its LAPACK driver's "
         "result is not reproducible by an unrolled algorithm"},
        {"linalg_pinv", pinv},
        {"pinverse", pinv},
        {"linalg_matrix_rank", svd_based},
        {"linalg_cond", svd_based},
        {"linalg_ldl_factor", ldl},
        {"linalg_ldl_factor_ex", ldl},
        {"linalg_ldl_solve", ldl},
    };
  }();
  return why;
}

void refuse_linalg(OpContext& cx) {
  cx.unsupported(cx.op() + ": " + linalg_refusals().at(cx.op()) +
                 " - compute it outside the exported model or replace it before torch.export");
}
MX_ATEN_LOWER(refuse_linalg, "aten.linalg_eig", "aten.linalg_eigvals", "aten.geqrf", "aten.linalg_lstsq",
              "aten.linalg_pinv", "aten.pinverse", "aten.linalg_matrix_rank", "aten.linalg_cond",
              "aten.linalg_ldl_factor", "aten.linalg_ldl_factor_ex", "aten.linalg_ldl_solve");

}  // namespace
}  // namespace mx::aten_onnx
