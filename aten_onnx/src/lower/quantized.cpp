// Quantize / dequantize of the quantized_decomposed library (what PT2E
// quantization - torchao's flow today - leaves in a program) -> ONNX
// QuantizeLinear / DequantizeLinear, the Q/DQ form runtimes fuse into
// their quantized kernels.
//
// torch computes clamp(round(x * (1 / scale)) + zero_point, quant_min,
// quant_max) in float32; QuantizeLinear divides by the scale. The two
// agree except for a value within one float32 ulp of a rounding tie, which
// may land one quantization step apart. QuantizeLinear saturates to the
// quantized dtype's range: a narrower [quant_min, quant_max] (symmetric
// int8 weights use [-127, 127]) adds a Clip.
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using onnx::TensorProto;

struct QuantRange {
  int64_t lo, hi;
  int opset;  // the first opset whose QuantizeLinear has this dtype
};

QuantRange range_of(OpContext& cx, int32_t qtype) {
  switch (qtype) {
    case TensorProto::INT8:
      return {-128, 127, 13};
    case TensorProto::UINT8:
      return {0, 255, 13};
    case TensorProto::INT16:
      return {-32768, 32767, 21};
    case TensorProto::UINT16:
      return {0, 65535, 21};
    default:
      cx.unsupported("quantization to " + mx::aten_onnx::dtype_name(qtype) +
                     " (ONNX has int8, uint8, int16, uint16)");
  }
}

// The quantized dtype of the op, checked against the export's opset.
int32_t quantized_dtype(OpContext& cx) {
  const int32_t qtype = cx.dtype_arg("dtype", 0);
  const QuantRange r = range_of(cx, qtype);
  if (cx.opset < r.opset)
    cx.unsupported("needs ONNX opset " + std::to_string(r.opset) + " (QuantizeLinear to " +
                   mx::aten_onnx::dtype_name(qtype) + "); this export is opset " + std::to_string(cx.opset) +
                   ": export with --opset " + std::to_string(r.opset) + " or newer");
  return qtype;
}

// A zero point (an int, or an int64 tensor in torch) as the quantized dtype.
std::string zero_point(OpContext& cx, const std::string& name, int32_t qtype) {
  return cx.operand(name, qtype);
}

// Clip to [quant_min, quant_max] where that is narrower than the dtype.
std::string clip_to_range(OpContext& cx, const std::string& q, int32_t qtype) {
  const QuantRange r = range_of(cx, qtype);
  const bool static_range =
      cx.arg_kind("quant_min") == ArgKind::integer && cx.arg_kind("quant_max") == ArgKind::integer;
  if (static_range && cx.int_arg("quant_min") <= r.lo && cx.int_arg("quant_max") >= r.hi) return q;
  return cx.emit1("Clip", {q, cx.operand("quant_min", qtype), cx.operand("quant_max", qtype)});
}

std::string as_float32(OpContext& cx, const std::string& name) {
  return cx.cast(cx.tensor(name), cx.dtype_of(name), TensorProto::FLOAT);
}

void lower_quantize_per_tensor(OpContext& cx) {
  const int32_t qtype = quantized_dtype(cx);
  const std::string q =
      cx.emit1("QuantizeLinear", {as_float32(cx, "input"), cx.operand("scale", TensorProto::FLOAT),
                                  zero_point(cx, "zero_point", qtype)});
  cx.out(0, clip_to_range(cx, q, qtype));
}
MX_ATEN_LOWER(lower_quantize_per_tensor, "quantized_decomposed.quantize_per_tensor.default",
              "quantized_decomposed.quantize_per_tensor.tensor",
              "quantized_decomposed.quantize_per_tensor.tensor2");

void lower_quantize_per_channel(OpContext& cx) {
  const int32_t qtype = quantized_dtype(cx);
  const int64_t axis = norm_dim(cx.int_arg("axis"), cx.rank_of("input"));
  const std::string q = cx.emit1("QuantizeLinear",
                                 {as_float32(cx, "input"), cx.operand("scales", TensorProto::FLOAT),
                                  zero_point(cx, "zero_points", qtype)},
                                 {attr("axis", axis)});
  cx.out(0, clip_to_range(cx, q, qtype));
}
MX_ATEN_LOWER(lower_quantize_per_channel, "quantized_decomposed.quantize_per_channel.default");

// DequantizeLinear gives float32; out_dtype (float32 by default) is a Cast.
void finish_dequantize(OpContext& cx, const std::string& x) {
  cx.out(0, cx.cast(x, TensorProto::FLOAT, cx.dtype_arg("out_dtype", TensorProto::FLOAT)));
}

void lower_dequantize_per_tensor(OpContext& cx) {
  const int32_t qtype = quantized_dtype(cx);
  if (cx.dtype_of("input") != qtype)
    cx.unsupported("dequantize of a tensor whose dtype is not the 'dtype' argument");
  finish_dequantize(cx,
                    cx.emit1("DequantizeLinear", {cx.tensor("input"), cx.operand("scale", TensorProto::FLOAT),
                                                  zero_point(cx, "zero_point", qtype)}));
}
MX_ATEN_LOWER(lower_dequantize_per_tensor, "quantized_decomposed.dequantize_per_tensor.default",
              "quantized_decomposed.dequantize_per_tensor.tensor",
              "quantized_decomposed.dequantize_per_tensor.tensor2");

void lower_dequantize_per_channel(OpContext& cx) {
  const int32_t qtype = quantized_dtype(cx);
  if (cx.dtype_of("input") != qtype)
    cx.unsupported("dequantize of a tensor whose dtype is not the 'dtype' argument");
  const int64_t axis = norm_dim(cx.int_arg("axis"), cx.rank_of("input"));
  std::vector<std::string> inputs{cx.tensor("input"), cx.operand("scales", TensorProto::FLOAT)};
  if (cx.has("zero_points")) inputs.push_back(zero_point(cx, "zero_points", qtype));
  finish_dequantize(cx, cx.emit1("DequantizeLinear", inputs, {attr("axis", axis)}));
}
MX_ATEN_LOWER(lower_dequantize_per_channel, "quantized_decomposed.dequantize_per_channel.default");

}  // namespace
}  // namespace mx::aten_onnx
