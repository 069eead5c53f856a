// The dtype conversions of scripted code that are no ATen ops of the
// shared lowerings: aten::float / long / int / bool / half / double. The
// target dtype is the executed output's dtype. aten::to, type_as and
// _to_copy are the shared lowering's (aten_onnx/src/lower/creation.cpp).
#include "ctx.hpp"

namespace mx::torchscript {
namespace {

void lower_cast(Ctx& cx, const tj::Node*) {
  VP x = cx.in(0);
  auto to = onnx_type_of(cx.out_st());
  if (cx.onnx_type(x) == to) {
    cx.same(0, x);
    return;
  }
  cx.out(0, cx.cast(cx.tensor(x), cx.onnx_type(x), to));
}
MXTS_LOWER(lower_cast, "aten::float", "aten::long", "aten::int", "aten::bool", "aten::half", "aten::double");

}  // namespace
}  // namespace mx::torchscript
