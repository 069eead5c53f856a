// Writes of a value over a tensor: fill_/fill, zero_, copy_.
#include <climits>

#include "ctx.hpp"

namespace mx::torchscript {
namespace {

std::string fill_like(Ctx& cx, const std::string& like, size_t vidx, at::ScalarType dt) {
  return cx.emit1("Expand", {cx.emit1("Reshape", {cx.tensor_as(vidx, dt), cx.ci64({})}), cx.shape_of(like)});
}

void lower_fill(Ctx& cx, const tj::Node*) {  // fill_(self, value)
  cx.out(0, fill_like(cx, cx.tensor(0), 1, cx.out_st()));
}
MXTS_LOWER(lower_fill, "aten::fill_", "aten::fill");

void lower_zero(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_st();
  cx.out(0, cx.emit1("Expand", {cx.cscalar(0, dt), cx.shape_of(cx.tensor(0))}));
}
MXTS_LOWER(lower_zero, "aten::zero_");

void lower_copy(Ctx& cx, const tj::Node*) {  // copy_(self, src): src broadcast to self, self's dtype
  auto dt = cx.out_st();
  cx.out(0, cx.emit1("Expand", {cx.tensor_as(1, dt), cx.shape_of(cx.tensor(0))}));
}
MXTS_LOWER(lower_copy, "aten::copy_");

}  // namespace
}  // namespace mx::torchscript
