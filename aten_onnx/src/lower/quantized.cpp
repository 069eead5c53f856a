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
  if (is_floating(cx.dtype_of("zero_points")))
    cx.unsupported("quantize_per_channel with floating-point zero points (QuantizeLinear's zero point has the "
                   "quantized dtype; torch adds the float zero point after rounding)");
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

// A per-channel parameter (1-D over `axis`) shaped to broadcast against
// a tensor of rank `rank`: [C, 1, ..., 1] from the axis on.
std::string along_axis(OpContext& cx, const std::string& v, int64_t axis, int64_t rank) {
  std::vector<int64_t> shape(static_cast<size_t>(rank - axis), 1);
  shape[0] = -1;
  return cx.emit1("Reshape", {v, cx.ci64(shape)});
}

// Float zero points (the embedding quantizer's per_channel_affine_float_qparams:
// zero_point = -min / scale, not an integer) cannot be DequantizeLinear's
// zero point, which has the quantized dtype: (x - zero_point) * scale in
// float32, as torch computes it.
std::string dequantize_float_zero_points(OpContext& cx, int64_t axis) {
  const int64_t rank = cx.rank_of("input");
  const std::string x = cx.cast(cx.tensor("input"), cx.dtype_of("input"), TensorProto::FLOAT);
  const std::string zp = along_axis(cx, cx.operand("zero_points", TensorProto::FLOAT), axis, rank);
  const std::string s = along_axis(cx, cx.operand("scales", TensorProto::FLOAT), axis, rank);
  return cx.emit1("Mul", {cx.emit1("Sub", {x, zp}), s});
}

void lower_dequantize_per_channel(OpContext& cx) {
  const int32_t qtype = quantized_dtype(cx);
  if (cx.dtype_of("input") != qtype)
    cx.unsupported("dequantize of a tensor whose dtype is not the 'dtype' argument");
  const int64_t axis = norm_dim(cx.int_arg("axis"), cx.rank_of("input"));
  if (cx.has("zero_points") && is_floating(cx.dtype_of("zero_points"))) {
    finish_dequantize(cx, dequantize_float_zero_points(cx, axis));
    return;
  }
  std::vector<std::string> inputs{cx.tensor("input"), cx.operand("scales", TensorProto::FLOAT)};
  if (cx.has("zero_points")) inputs.push_back(zero_point(cx, "zero_points", qtype));
  finish_dequantize(cx, cx.emit1("DequantizeLinear", inputs, {attr("axis", axis)}));
}
MX_ATEN_LOWER(lower_dequantize_per_channel, "quantized_decomposed.dequantize_per_channel.default");

// choose_qparams.tensor(input, quant_min, quant_max, eps, dtype) -> (scale,
// zero_point), what dynamic PT2E quantization computes for an activation
// each call; torch's determine_qparams over the whole tensor's
// [lo, hi] = [min(min, 0), max(max, 0)]:
//   affine:    scale = max((hi - lo) / (qmax - qmin), eps),
//              zero_point = clamp(qmin - round(lo / scale), qmin, qmax)
//   symmetric: scale = max(max(-lo, hi) / ((qmax - qmin) / 2), eps),
//              zero_point = 128 for uint8, else 0.
// Like torch, the range arithmetic runs in the input's dtype and the max
// with eps (a float32 tensor) in float32; both outputs are [1], scale
// float64 and zero_point int64 as torch returns them.
struct QParamRange {
  std::string lo, hi;  // 0-d, the input's dtype
};

QParamRange range_with_zero(OpContext& cx, const std::string& x, int32_t dt) {
  const std::string zero = cx.cscalar(0, dt);
  return {cx.emit1("Min", {mx::aten_onnx::emit_reduce(cx, "ReduceMin", x, {}, false), zero}),
          cx.emit1("Max", {mx::aten_onnx::emit_reduce(cx, "ReduceMax", x, {}, false), zero})};
}

// clamp(qmin - round(lo / scale), qmin, qmax) as int64; scale float32.
std::string affine_zero_point(OpContext& cx, const std::string& lo, int32_t dt, const std::string& scale) {
  const auto f32 = [&](int64_t v) { return cx.cscalar(static_cast<double>(v), TensorProto::FLOAT); };
  const int64_t qmin = cx.int_arg("quant_min"), qmax = cx.int_arg("quant_max");
  const std::string steps = cx.emit1("Round", {cx.emit1("Div", {cx.cast(lo, dt, TensorProto::FLOAT), scale})});
  const std::string zp = mx::aten_onnx::emit_clip(cx, cx.emit1("Sub", {f32(qmin), steps}), f32(qmin), f32(qmax),
                                                  TensorProto::FLOAT);
  return cx.cast(zp, TensorProto::FLOAT, TensorProto::INT64);
}

void lower_choose_qparams(OpContext& cx) {
  const int32_t dt = cx.dtype_of("input");
  if (dt != TensorProto::FLOAT && dt != TensorProto::FLOAT16 && dt != TensorProto::BFLOAT16)
    cx.unsupported("choose_qparams of a " + mx::aten_onnx::dtype_name(dt) +
                   " tensor (torch takes float32, float16, bfloat16)");
  const int32_t qtype = cx.dtype_arg("dtype", 0);
  range_of(cx, qtype);  // refuses a dtype ONNX cannot quantize to
  const bool symmetric = cx.target().find("symmetric") != std::string::npos;
  const QParamRange r = range_with_zero(cx, cx.tensor("input"), dt);
  const double levels = static_cast<double>(cx.int_arg("quant_max") - cx.int_arg("quant_min"));
  const std::string span = symmetric ? cx.emit1("Max", {cx.emit1("Neg", {r.lo}), r.hi}) : cx.emit1("Sub", {r.hi, r.lo});
  const std::string raw = cx.emit1("Div", {span, cx.cscalar(symmetric ? levels / 2 : levels, dt)});
  const std::string eps = cx.cscalar(static_cast<float>(cx.float_arg("eps")), TensorProto::FLOAT);
  const std::string scale = cx.emit1("Max", {cx.cast(raw, dt, TensorProto::FLOAT), eps});
  const std::string zp = symmetric ? cx.cscalar(qtype == TensorProto::UINT8 ? 128 : 0, TensorProto::INT64)
                                   : affine_zero_point(cx, r.lo, dt, scale);
  const std::string one = cx.ci64({1});
  cx.out(0, cx.emit1("Reshape", {cx.cast(scale, TensorProto::FLOAT, TensorProto::DOUBLE), one}));
  cx.out(1, cx.emit1("Reshape", {zp, one}));
}
MX_ATEN_LOWER(lower_choose_qparams, "quantized_decomposed.choose_qparams.tensor",
              "quantized_decomposed.choose_qparams_symmetric.tensor");

}  // namespace
}  // namespace mx::aten_onnx
