// dtype conversions: to / type_as / float / long / int / bool / half / double.
// The target dtype is the executed output's dtype, so every overload of
// aten::to (dtype, device+dtype, other tensor) is handled the same way.
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
MXTS_LOWER(lower_cast, "aten::to", "aten::type_as", "aten::float", "aten::long", "aten::int", "aten::bool",
           "aten::half", "aten::double", "aten::_to_copy");

}  // namespace
}  // namespace mx::torchscript
