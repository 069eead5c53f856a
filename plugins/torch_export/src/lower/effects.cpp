// higher_order.with_effects(token, op, *args): an op with a side effect,
// ordered by an effect token the program threads through them (the token
// is bound to an empty tensor, exporter.cpp). Lowered: ATen's
// _linalg_check_errors, which run_decompositions() leaves after a linalg
// op (inv, solve, cholesky) to raise on a singular / not positive-definite
// matrix from the op's info. An ONNX graph cannot raise: the check is
// dropped and the op's values are returned as the lowering computes them
// (aten_onnx/src/lower/linear_solve.cpp, cholesky.cpp). Any other effect
// (a print, a custom op with effects) is refused naming it.
#include "lower_ctx.hpp"

namespace mx::torch_export {
namespace {

void lower_with_effects(LowerCtx& cx) {
  const json& inputs = cx.node->at("inputs");
  std::string op;
  if (inputs.size() > 1 && inputs[1].at("arg").contains("as_operator"))
    op = inputs[1].at("arg").at("as_operator").get<std::string>();
  if (op != "torch.ops.aten._linalg_check_errors.default")
    cx.unsupported("an op with side effects (" + (op.empty() ? std::string("unknown") : op) +
                   "): only aten._linalg_check_errors is lowered (as nothing: ONNX cannot raise)");
  const json& token = inputs[0].at("arg");
  if (!token.contains("as_tensor")) cx.unsupported("with_effects without an effect token");
  auto it = cx.values.find(token.at("as_tensor").at("name").get<std::string>());
  if (it == cx.values.end()) cx.unsupported("with_effects reads an effect token nothing defines");
  const std::string onnx = it->second.onnx;
  if (cx.n_outputs() > 0 && cx.output_is_tensor(0)) cx.out(0, onnx);
}
MXTE_LOWER(lower_with_effects, "higher_order.with_effects");

}  // namespace
}  // namespace mx::torch_export
