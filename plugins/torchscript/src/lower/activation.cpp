// Activations: gelu, silu, leaky_relu, clamp/clip, hardtanh,
// hardswish/hardsigmoid/relu6, mish/softplus/elu/selu/celu/prelu/glu/
// log_sigmoid/softsign, shrink, threshold, softmax/log_softmax, following
// the ATen definitions (parameters: beta/threshold, alpha/scale/input_scale).
// relu, sigmoid and tanh are 1:1 ONNX ops: unary_math.cpp.
#include <cmath>

#include "ctx.h"

namespace mxts {
namespace {

std::string x_out(Ctx& cx) { return cx.tensor_as(0, cx.out_dtype()); }

void lower_hardswish(Ctx& cx, const tj::Node*) { cx.out(0, cx.emit1("HardSwish", {x_out(cx)})); }
MXTS_LOWER(lower_hardswish, "aten::hardswish", "aten::hardswish_");

void lower_hardsigmoid(Ctx& cx, const tj::Node*) {  // relu6(x + 3) / 6
  cx.out(0, cx.emit1("HardSigmoid", {x_out(cx)}, {attr("alpha", 1.0f / 6.0f), attr("beta", 0.5f)}));
}
MXTS_LOWER(lower_hardsigmoid, "aten::hardsigmoid", "aten::hardsigmoid_");

void lower_relu6(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_dtype();
  cx.out(0, cx.emit1("Clip", {x_out(cx), cx.cscalar(0, dt), cx.cscalar(6, dt)}));
}
MXTS_LOWER(lower_relu6, "aten::relu6", "aten::relu6_");

// softplus(x, beta, threshold) = x if x*beta > threshold else log1p(exp(beta x)) / beta
std::string softplus(Ctx& cx, const std::string& x, double beta, double threshold, at::ScalarType dt) {
  std::string bx = beta == 1.0 ? x : cx.emit1("Mul", {x, cx.cscalar(beta, dt)});
  std::string sp = cx.emit1("Softplus", {bx});
  if (beta != 1.0) sp = cx.emit1("Div", {sp, cx.cscalar(beta, dt)});
  return cx.emit1("Where", {cx.emit1("Greater", {bx, cx.cscalar(threshold, dt)}), x, sp});
}

void lower_softplus(Ctx& cx, const tj::Node*) {
  double beta = cx.n_in() > 1 ? cx.arg_double(1) : 1.0, thr = cx.n_in() > 2 ? cx.arg_double(2) : 20.0;
  cx.out(0, softplus(cx, x_out(cx), beta, thr, cx.out_dtype()));
}
MXTS_LOWER(lower_softplus, "aten::softplus");

void lower_mish(Ctx& cx, const tj::Node*) {  // x * tanh(softplus(x))
  auto dt = cx.out_dtype();
  std::string x = x_out(cx);
  cx.out(0, cx.emit1("Mul", {x, cx.emit1("Tanh", {softplus(cx, x, 1.0, 20.0, dt)})}));
}
MXTS_LOWER(lower_mish, "aten::mish", "aten::mish_");

void lower_elu(Ctx& cx, const tj::Node*) {
  // elu(x, alpha, scale, input_scale) = scale * (x > 0 ? x : alpha * (exp(x * input_scale) - 1))
  auto dt = cx.out_dtype();
  double alpha = cx.n_in() > 1 ? cx.arg_double(1) : 1.0, scale = cx.n_in() > 2 ? cx.arg_double(2) : 1.0;
  double in_scale = cx.n_in() > 3 ? cx.arg_double(3) : 1.0;
  std::string x = x_out(cx);
  if (scale == 1.0 && in_scale == 1.0) {
    cx.out(0, cx.emit1("Elu", {x}, {attr("alpha", static_cast<float>(alpha))}));
    return;
  }
  std::string xi = in_scale == 1.0 ? x : cx.emit1("Mul", {x, cx.cscalar(in_scale, dt)});
  std::string neg = cx.emit1("Mul", {cx.emit1("Sub", {cx.emit1("Exp", {xi}), cx.cscalar(1, dt)}),
                                     cx.cscalar(alpha, dt)});
  std::string y = cx.emit1("Where", {cx.emit1("Greater", {x, cx.cscalar(0, dt)}), x, neg});
  cx.out(0, scale == 1.0 ? y : cx.emit1("Mul", {y, cx.cscalar(scale, dt)}));
}
MXTS_LOWER(lower_elu, "aten::elu", "aten::elu_");

void lower_selu(Ctx& cx, const tj::Node*) { cx.out(0, cx.emit1("Selu", {x_out(cx)})); }
MXTS_LOWER(lower_selu, "aten::selu", "aten::selu_");

void lower_celu(Ctx& cx, const tj::Node*) {
  float a = cx.n_in() > 1 ? static_cast<float>(cx.arg_double(1)) : 1.0f;
  cx.out(0, cx.emit1("Celu", {cx.tensor_as(0, at::kFloat)}, {attr("alpha", a)}));
}
MXTS_LOWER(lower_celu, "aten::celu", "aten::celu_");

void lower_prelu(Ctx& cx, const tj::Node*) {
  // weight [C] (or [1]) applies along dim 1
  int64_t r = cx.rank(0);
  std::string w = cx.tensor(1);
  if (cx.ex_t(1).numel() > 1 && r > 2) {
    std::vector<int64_t> axes;
    for (int64_t k = 1; k < r - 1; ++k) axes.push_back(k);
    w = cx.unsqueeze(w, axes);
  }
  cx.out(0, cx.emit1("PRelu", {cx.tensor(0), w}));
}
MXTS_LOWER(lower_prelu, "aten::prelu", "aten::_prelu_kernel");

void lower_glu(Ctx& cx, const tj::Node*) {  // a * sigmoid(b), halves along dim
  int64_t dim = norm_dim(cx.n_in() > 1 ? cx.arg_int(1) : -1, cx.rank(0));
  int64_t h = cx.ex_t(0).size(dim) / 2;
  auto p = cx.emit("Split", {cx.tensor(0), cx.ci64({h, h})}, {attr("axis", dim)}, 2);
  cx.out(0, cx.emit1("Mul", {p[0], cx.emit1("Sigmoid", {p[1]})}));
}
MXTS_LOWER(lower_glu, "aten::glu");

void lower_log_sigmoid(Ctx& cx, const tj::Node*) {  // -softplus(-x)
  auto dt = cx.out_dtype();
  std::string nx = cx.emit1("Neg", {x_out(cx)});
  cx.out(0, cx.emit1("Neg", {softplus(cx, nx, 1.0, 20.0, dt)}));
}
MXTS_LOWER(lower_log_sigmoid, "aten::log_sigmoid");

void lower_softsign(Ctx& cx, const tj::Node*) { cx.out(0, cx.emit1("Softsign", {x_out(cx)})); }
MXTS_LOWER(lower_softsign, "aten::softsign");

void lower_hardshrink(Ctx& cx, const tj::Node* n) {
  // hardshrink: x if |x| > l else 0; softshrink: x - l*sign(x) if |x| > l else 0
  auto dt = cx.out_dtype();
  double l = cx.n_in() > 1 ? cx.arg_double(1) : 0.5;
  std::string x = x_out(cx);
  std::string keep = cx.emit1("Greater", {cx.emit1("Abs", {x}), cx.cscalar(l, dt)});
  std::string v = x;
  if (std::string(n->kind().toQualString()) == "aten::softshrink")
    v = cx.emit1("Sub", {x, cx.emit1("Mul", {cx.emit1("Sign", {x}), cx.cscalar(l, dt)})});
  cx.out(0, cx.emit1("Where", {keep, v, cx.cscalar(0, dt)}));
}
MXTS_LOWER(lower_hardshrink, "aten::hardshrink", "aten::softshrink");

void lower_threshold(Ctx& cx, const tj::Node*) {  // x > th ? x : value
  auto dt = cx.out_dtype();
  std::string x = x_out(cx);
  cx.out(0, cx.emit1("Where", {cx.emit1("Greater", {x, cx.tensor_as(1, dt)}), x, cx.tensor_as(2, dt)}));
}
MXTS_LOWER(lower_threshold, "aten::threshold", "aten::threshold_");

void lower_gelu(Ctx& cx, const tj::Node*) {
  std::string approx = cx.n_in() >= 2 ? cx.arg_string(1) : "none";
  cx.out(0, emit_gelu(cx, cx.tensor(0), approx.empty() ? "none" : approx, onnx_type_of(cx.out_dtype())));
}
MXTS_LOWER(lower_gelu, "aten::gelu", "aten::gelu_");

void lower_silu(Ctx& cx, const tj::Node*) {
  std::string x = cx.tensor(0);
  cx.out(0, cx.emit1("Mul", {x, cx.emit1("Sigmoid", {x})}));
}
MXTS_LOWER(lower_silu, "aten::silu", "aten::silu_");

void lower_leaky_relu(Ctx& cx, const tj::Node*) {
  float a = cx.n_in() >= 2 ? static_cast<float>(cx.arg_double(1)) : 0.01f;
  cx.out(0, cx.emit1("LeakyRelu", {cx.tensor(0)}, {attr("alpha", a)}));
}
MXTS_LOWER(lower_leaky_relu, "aten::leaky_relu", "aten::leaky_relu_");

void lower_clamp(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toUnqualString();
  auto dt = cx.out_dtype();
  std::string x = cx.tensor_as(0, dt);
  if (k.rfind("clamp_min", 0) == 0) {
    cx.out(0, cx.emit1("Max", {x, cx.tensor_as(1, dt)}));
    return;
  }
  if (k.rfind("clamp_max", 0) == 0) {
    cx.out(0, cx.emit1("Min", {x, cx.tensor_as(1, dt)}));
    return;
  }
  if (!cx.is_none(1)) x = cx.emit1("Max", {x, cx.tensor_as(1, dt)});
  if (cx.n_in() >= 3 && !cx.is_none(2)) x = cx.emit1("Min", {x, cx.tensor_as(2, dt)});
  cx.out(0, x);
}
MXTS_LOWER(lower_clamp, "aten::clamp", "aten::clamp_", "aten::clamp_min", "aten::clamp_max", "aten::clip",
           "aten::clamp_min_", "aten::clamp_max_");

void lower_hardtanh(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_dtype();
  std::string x = cx.emit1("Max", {cx.tensor(0), cx.cscalar(cx.arg_double(1), dt)});
  cx.out(0, cx.emit1("Min", {x, cx.cscalar(cx.arg_double(2), dt)}));
}
MXTS_LOWER(lower_hardtanh, "aten::hardtanh", "aten::hardtanh_");

void lower_softmax(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  auto dt = cx.out_dtype();
  std::string x = cx.tensor_as(0, dt);
  int64_t axis = norm_dim(cx.arg_int(1), cx.rank(0));
  cx.out(0, cx.emit1(k == "aten::log_softmax" ? "LogSoftmax" : "Softmax", {x}, {attr("axis", axis)}));
}
MXTS_LOWER(lower_softmax, "aten::softmax", "aten::log_softmax", "aten::_softmax", "aten::_log_softmax");

}  // namespace
}  // namespace mxts
