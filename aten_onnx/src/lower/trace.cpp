// trace(self): the sum of a matrix's main diagonal. EyeLike masks it
// whatever the (possibly dynamic, possibly non-square) sizes; the sum is in
// the output's dtype, which ATen widens to int64 for integer matrices.
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void lower_trace(OpContext& cx) {
  if (cx.rank_of("self") != 2) cx.unsupported("trace of a tensor that is not 2-D");
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  const std::string diagonal = cx.emit1("Mul", {x, cx.emit1("EyeLike", {x})});
  cx.out(0, cx.emit1("ReduceSum", {diagonal}, {attr("keepdims", int64_t{0})}));
}
MX_ATEN_LOWER(lower_trace, "aten.trace");

}  // namespace
}  // namespace mx::aten_onnx
