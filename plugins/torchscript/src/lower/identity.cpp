// The TorchScript-only identities: prim::unchecked_cast (a refinement of a
// value's static type) and prim::data (a tensor's data). The ATen
// identities of an eval graph (contiguous, detach, clone, dropout, ...) are
// the shared lowering's (aten_onnx/src/lower/shape.cpp).
#include "ctx.hpp"

namespace mx::torchscript {
namespace {

void lower_identity(Ctx& cx, const tj::Node*) {
  cx.same(0, cx.in(0));
}
MXTS_LOWER(lower_identity, "prim::unchecked_cast", "prim::data");

}  // namespace
}  // namespace mx::torchscript
