// Ops that are the identity at inference: contiguous, detach, clone,
// alias, unchecked_cast, lift, eval-mode dropout.
#include "ctx.hpp"

namespace mx::torchscript {
namespace {

void lower_identity(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  // dropout(x, p, train): identity in eval, and for p == 0 in training mode too
  // (torchvision's swin calls F.dropout(attn, p=attention_dropout) with the
  // default training=True and p=0)
  if (k.find("dropout") != std::string::npos && n->inputs().size() >= 3 && cx.arg_bool(2) &&
      cx.arg_double(1) != 0.0)
    cx.unsupported("dropout in training mode (call model.eval() before tracing)");
  cx.same(0, cx.in(0));
}
MXTS_LOWER(lower_identity, "aten::contiguous", "aten::detach", "aten::clone", "prim::unchecked_cast",
           "aten::alias", "aten::dropout", "aten::dropout_", "aten::feature_dropout", "aten::alpha_dropout",
           "aten::feature_alpha_dropout", "aten::lift_fresh", "aten::lift", "aten::detach_", "prim::data",
           "aten::positive");

}  // namespace
}  // namespace mx::torchscript
