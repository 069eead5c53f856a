// det / linalg_det (TRAINING dialect) and _linalg_det (what
// run_decompositions() leaves, a (det, LU, pivots) tuple) -> ONNX Det, which
// takes any batch of square float matrices, dynamic batch dims included.
// Only det is lowered from _linalg_det: LU and pivots have no ONNX
// operator, and a program reading them is refused where it reads them.
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void lower_det(OpContext& cx) {
  const Value& a = cx.value_of(cx.has("A") ? "A" : "self");
  const int32_t dt = a.dtype;
  if (dt != onnx::TensorProto::FLOAT && dt != onnx::TensorProto::DOUBLE && dt != onnx::TensorProto::FLOAT16)
    cx.unsupported("det of a tensor that is not floating-point");
  cx.out(0, cx.emit1("Det", {a.onnx}));
}
MX_ATEN_LOWER(lower_det, "aten.det.default", "aten.linalg_det.default", "aten._linalg_det.default");

}  // namespace
}  // namespace mx::aten_onnx
