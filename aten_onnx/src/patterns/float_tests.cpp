// IsNaN / IsInf for every floating dtype at every opset: their float16 and
// bfloat16 forms exist from opset 20 only, so below it a half-precision
// input is tested in float32 (the test's answer is the same).
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

std::string testable(OnnxEmitter& e, const std::string& x, int32_t dtype) {
  const bool half = dtype == onnx::TensorProto::FLOAT16 || dtype == onnx::TensorProto::BFLOAT16;
  return half && e.opset < 20 ? e.cast(x, dtype, onnx::TensorProto::FLOAT) : x;
}

}  // namespace

std::string emit_is_nan(OnnxEmitter& e, const std::string& x, int32_t dtype) {
  return e.emit1("IsNaN", {testable(e, x, dtype)});
}

std::string emit_is_inf(OnnxEmitter& e, const std::string& x, int32_t dtype, bool positive, bool negative) {
  std::vector<onnx::AttributeProto> a;
  if (!positive) a.push_back(attr("detect_positive", int64_t{0}));
  if (!negative) a.push_back(attr("detect_negative", int64_t{0}));
  return e.emit1("IsInf", {testable(e, x, dtype)}, a);
}

}  // namespace mx::aten_onnx
