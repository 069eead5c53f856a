// A value clamped to scalar bounds: clamp to numbers, hardtanh, relu6.
// ONNX Runtime's Clip keeps a NaN as torch does (float32, float16 and
// double: the clamp_nan sample), and is one node where Max + Min are two.
// Its CPU kernel has no bfloat16 (nor have Max and Min: such a graph is
// checked through upcast_bf16), so other dtypes keep Max and Min. A
// one-sided clamp is one Max or Min: ONNX Runtime's Clip without a bound
// clamps to the type's largest finite value, so +inf came out as FLT_MAX.
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {

bool clip_takes(int32_t dt) {
  switch (dt) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
      return true;
    default:
      return false;
  }
}

std::string emit_clip(OnnxEmitter& e, const std::string& x, const std::string& lo, const std::string& hi,
                      int32_t dtype) {
  if (clip_takes(dtype) && !lo.empty() && !hi.empty()) return e.emit1("Clip", {x, lo, hi});
  std::string y = x;
  if (!lo.empty()) y = e.emit1("Max", {y, lo});
  if (!hi.empty()) y = e.emit1("Min", {y, hi});
  return y;
}

}  // namespace mx::aten_onnx
