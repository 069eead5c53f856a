// Activations and softmax: gelu, silu, hardtanh/relu6, hardswish,
// hardsigmoid, leaky_relu, elu, softmax/log_softmax (and core ATen's
// _softmax / _log_softmax).
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void lower_gelu(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, mx::aten_onnx::emit_gelu(cx, cx.operand("self", dt), cx.string_arg("approximate", "none"), dt));
}
MX_ATEN_LOWER(lower_gelu, "aten.gelu", "aten.gelu_");

void lower_silu(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  std::string x = cx.operand("self", dt);
  cx.out(0, cx.emit1("Mul", {x, cx.emit1("Sigmoid", {x})}));
}
MX_ATEN_LOWER(lower_silu, "aten.silu", "aten.silu_");

void lower_hardtanh(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const bool relu6 = cx.target().find("relu6") != std::string::npos;
  const double lo = relu6 ? 0.0 : cx.float_arg("min_val", -1.0),
               hi = relu6 ? 6.0 : cx.float_arg("max_val", 1.0);
  cx.out(0, mx::aten_onnx::emit_clip(cx, cx.operand("self", dt), cx.cscalar(lo, dt), cx.cscalar(hi, dt), dt));
}
MX_ATEN_LOWER(lower_hardtanh, "aten.hardtanh", "aten.hardtanh_", "aten.relu6", "aten.relu6_");

// hardsigmoid(x) = clamp(x/6 + 1/2, 0, 1): ONNX HardSigmoid with alpha 1/6;
// hardswish(x) = x * hardsigmoid(x): ONNX HardSwish (opset 14), one node.
void lower_hardsigmoid(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const bool swish = cx.target().find("hardswish") != std::string::npos;
  std::string x = cx.operand("self", dt);
  if (swish && cx.opset >= 14) return cx.out(0, cx.emit1("HardSwish", {x}));
  std::string hs = cx.emit1("HardSigmoid", {x}, {attr("alpha", 1.0f / 6.0f), attr("beta", 0.5f)});
  cx.out(0, swish ? cx.emit1("Mul", {x, hs}) : hs);
}
MX_ATEN_LOWER(lower_hardsigmoid, "aten.hardsigmoid", "aten.hardsigmoid_", "aten.hardswish",
              "aten.hardswish_");

// softsign(x) = x / (1 + |x|)
void lower_softsign(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  cx.out(0, cx.emit1("Div", {x, cx.emit1("Add", {cx.cscalar(1, dt), cx.emit1("Abs", {x})})}));
}
MX_ATEN_LOWER(lower_softsign, "aten.softsign");

void lower_leaky_relu(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, cx.emit1("LeakyRelu", {cx.operand("self", dt)},
                     {attr("alpha", static_cast<float>(cx.float_arg("negative_slope", 0.01)))}));
}
MX_ATEN_LOWER(lower_leaky_relu, "aten.leaky_relu", "aten.leaky_relu_");

// rrelu(self, lower=1/8, upper=1/3, training=False): in evaluation a
// leaky relu of slope (lower + upper) / 2; rrelu_with_noise_functional
// (core ATen's form) also returns its noise, unchanged then. Training mode
// draws a random slope per element: refused.
void lower_rrelu(OpContext& cx) {
  if (cx.bool_arg("training", false)) cx.unsupported("rrelu in training mode (a random slope per element)");
  const int32_t dt = cx.out_dtype();
  const double slope = (cx.float_arg("lower", 1.0 / 8) + cx.float_arg("upper", 1.0 / 3)) / 2;
  cx.out(0, cx.emit1("LeakyRelu", {cx.operand("self", dt)}, {attr("alpha", static_cast<float>(slope))}));
  if (cx.n_outputs() > 1) cx.out(1, cx.emit1("Identity", {cx.tensor("noise")}));
}
MX_ATEN_LOWER(lower_rrelu, "aten.rrelu", "aten.rrelu_with_noise", "aten.rrelu_with_noise_functional");

void lower_softmax(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const bool log = cx.target().find("log_softmax") != std::string::npos;
  const int64_t axis = norm_dim(cx.int_arg("dim"), cx.rank_of("self"));
  cx.out(0, cx.emit1(log ? "LogSoftmax" : "Softmax", {cx.operand("self", dt)}, {attr("axis", axis)}));
}
MX_ATEN_LOWER(lower_softmax, "aten.softmax", "aten._softmax", "aten.log_softmax", "aten._log_softmax",
              "aten._safe_softmax", "aten.special_softmax", "aten.special_log_softmax");

}  // namespace
}  // namespace mx::aten_onnx
