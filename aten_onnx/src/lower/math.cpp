// Element-wise math beyond the arithmetic of elementwise.cpp: inverse and
// hyperbolic trigonometry, the log/exp variants, NaN/Inf tests, trunc,
// atan2, integer xor, shifts, floor division, and the exponential-linear
// activations (elu, selu, celu), softplus and mish; logit,
// sinc, signbit, ldexp, deg2rad / rad2deg, heaviside, float_power, isclose,
// round to decimals.
// Where ONNX has no op (expm1, log2, log10, trunc, atan2) the formula is
// written out; ATen's accuracy difference near 0 for expm1 is within fp32
// tolerance for the values real programs feed it (log1p, erfc and ndtr,
// written out exactly, are in special.cpp).
#include "mx/onnx_proto.hpp"

#include <cmath>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void lower_unary_math(OpContext& cx) {
  static const std::map<std::string, std::string> direct = {
      {"acos", "Acos"}, {"asin", "Asin"},   {"atan", "Atan"},   {"tan", "Tan"},    {"sinh", "Sinh"},
      {"cosh", "Cosh"}, {"asinh", "Asinh"}, {"acosh", "Acosh"}, {"atanh", "Atanh"}};
  const std::string n = cx.op();
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  if (auto it = direct.find(n); it != direct.end()) {
    // ONNX Runtime has these in float only: double is written out
    if (dt == onnx::TensorProto::DOUBLE) return cx.out(0, emit_trig_double(cx, n, x));
    return cx.out(0, cx.emit1(it->second, {x}));
  }
  if (n == "expm1" || n == "special_expm1") {
    // Kahan's exact form (u - 1) x / log(u), u = exp(x): Exp(x) - 1 loses
    // x's digits near 0; x itself where u rounds to 1, -1 where u - 1 does.
    const std::string one = cx.cscalar(1, dt);
    const std::string u = cx.emit1("Exp", {x});
    const std::string um1 = cx.emit1("Sub", {u, one});
    const std::string exact = cx.emit1("Div", {cx.emit1("Mul", {um1, x}), cx.emit1("Log", {u})});
    std::string y = cx.emit1("Where", {cx.emit1("Equal", {um1, cx.cscalar(-1, dt)}), um1, exact});
    y = cx.emit1("Where", {cx.emit1("Equal", {u, one}), x, y});
    return cx.out(0, cx.emit1("Where", {emit_is_inf(cx, u, dt, true, false), u, y}));
  }
  const double base = n == "log2" ? std::log(2.0) : std::log(10.0);  // log2 / log10
  cx.out(0, cx.emit1("Div", {cx.emit1("Log", {x}), cx.cscalar(base, dt)}));
}
MX_ATEN_LOWER(lower_unary_math, "aten.acos", "aten.asin", "aten.atan", "aten.tan", "aten.sinh", "aten.cosh",
              "aten.asinh", "aten.acosh", "aten.atanh", "aten.expm1", "aten.log2", "aten.log10",
              "aten.special_expm1");

// round(self, decimals): as ATen, Round (half to even) of x * 10^d over
// 10^d, or of x / 10^-d times 10^-d for negative d, 10^|d| in the
// tensor's dtype.
void lower_round_decimals(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t d = cx.int_arg("decimals", 0);
  const std::string x = cx.operand("self", dt);
  if (d == 0) return cx.out(0, cx.emit1("Round", {x}));
  const std::string scale = cx.cscalar(std::pow(10.0, static_cast<double>(d < 0 ? -d : d)), dt);
  if (d > 0) return cx.out(0, cx.emit1("Div", {cx.emit1("Round", {cx.emit1("Mul", {x, scale})}), scale}));
  cx.out(0, cx.emit1("Mul", {cx.emit1("Round", {cx.emit1("Div", {x, scale})}), scale}));
}
MX_ATEN_LOWER(lower_round_decimals, "aten.round.decimals", "aten.round_.decimals");

// exp2(x) = 2^x, square(x) = x * x: torch.export decomposes both, a
// TorchScript graph keeps them.
void lower_exp2_square(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  if (cx.op() == "square") return cx.out(0, cx.emit1("Mul", {x, x}));
  cx.out(0, cx.emit1("Pow", {cx.cscalar(2, dt), x}));
}
MX_ATEN_LOWER(lower_exp2_square, "aten.exp2", "aten.square", "aten.special_exp2");

// Sign(x) * Floor(abs(x)): float truncation, written out with opset-17 ops.
std::string truncated(OpContext& cx, const std::string& x) {
  return cx.emit1("Mul", {cx.emit1("Sign", {x}), cx.emit1("Floor", {cx.emit1("Abs", {x})})});
}

// trunc: integers are their own truncation.
void lower_trunc(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  if (!mx::aten_onnx::is_floating(dt)) return cx.out(0, cx.emit1("Identity", {x}));
  cx.out(0, truncated(cx, x));
}
MX_ATEN_LOWER(lower_trunc, "aten.trunc", "aten.trunc_", "aten.fix");

// isnan / isinf: false for integer inputs, as in ATen.
void lower_isnan_isinf(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const bool nan = cx.op() == "isnan";
  if (!mx::aten_onnx::is_floating(v.dtype)) {
    const std::string f = cx.emit1(
        "Equal", {cx.cast(v.onnx, v.dtype, onnx::TensorProto::INT64),
                  cx.emit1("Add", {cx.cast(v.onnx, v.dtype, onnx::TensorProto::INT64), cx.ci64s(1)})});
    return cx.out(0, f);  // x == x + 1 is false for every int64
  }
  cx.out(0, nan ? emit_is_nan(cx, v.onnx, v.dtype) : emit_is_inf(cx, v.onnx, v.dtype));
}
MX_ATEN_LOWER(lower_isnan_isinf, "aten.isnan", "aten.isinf");

void lower_isfinite(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const std::string bad =
      cx.emit1("Or", {emit_is_nan(cx, v.onnx, v.dtype), emit_is_inf(cx, v.onnx, v.dtype)});
  cx.out(0, cx.emit1("Not", {bad}));
}
MX_ATEN_LOWER(lower_isfinite, "aten.isfinite");

// atan2(y=self, x=other): the shared pattern.
void lower_atan2(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, mx::aten_onnx::emit_atan2(cx, cx.operand("self", dt), cx.operand("other", dt), dt));
}
MX_ATEN_LOWER(lower_atan2, "aten.atan2", "aten.arctan2");

// bitwise_xor: Xor on bools; on integers a ^ b = (a | b) - (a & b) has no
// ONNX form before opset 18's BitwiseXor, so a + b - 2 * (a & b) is not
// available either: refused with the reason.
void lower_bitwise_xor(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  if (dt == onnx::TensorProto::BOOL) {
    const int32_t b = onnx::TensorProto::BOOL;
    return cx.out(0, cx.emit1("Xor", {cx.operand("self", b), cx.operand("other", b)}));
  }
  if (cx.opset < 18) cx.unsupported("bitwise_xor on integers needs ONNX opset 18 (BitwiseXor)");
  cx.out(0, cx.emit1("BitwiseXor", {cx.operand("self", dt), cx.operand("other", dt)}));
}
MX_ATEN_LOWER(lower_bitwise_xor, "aten.bitwise_xor", "aten.__xor__", "aten.__ixor__");

// Shifts. ONNX's BitShift takes unsigned types only, and ATen's right shift
// of a signed integer is arithmetic: a << b = a * 2^b and a >> b =
// floor(a / 2^b), the quotient in double (exact for |a| < 2^53).
void lower_shift(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const bool left = cx.op().find("left") != std::string::npos || cx.op().find("lshift") != std::string::npos;
  if (mx::aten_onnx::is_unsigned_integer(dt))
    return cx.out(0, cx.emit1("BitShift", {cx.operand("self", dt), cx.operand("other", dt)},
                              {attr("direction", std::string(left ? "LEFT" : "RIGHT"))}));
  if (mx::aten_onnx::is_floating(dt)) cx.unsupported("a shift of a floating-point tensor");
  const int32_t f = onnx::TensorProto::DOUBLE;
  const std::string scale = cx.emit1("Pow", {cx.cscalar(2, f), cx.operand("other", f)});
  if (left) return cx.out(0, cx.emit1("Mul", {cx.operand("self", dt), cx.cast(scale, f, dt)}));
  const std::string q = cx.emit1("Floor", {cx.emit1("Div", {cx.operand("self", f), scale})});
  cx.out(0, cx.cast(q, f, dt));
}
MX_ATEN_LOWER(lower_shift, "aten.__lshift__", "aten.__rshift__", "aten.__ilshift__", "aten.__irshift__",
              "aten.bitwise_left_shift", "aten.bitwise_right_shift");

// floor_divide: floor(a / b) on floats; on integers the floor of the
// double-precision quotient (exact for |values| < 2^53).
void lower_floor_divide(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  if (mx::aten_onnx::is_floating(dt))
    return cx.out(0, cx.emit1("Floor", {cx.emit1("Div", {cx.operand("self", dt), cx.operand("other", dt)})}));
  const int32_t f = onnx::TensorProto::DOUBLE;
  const std::string q = cx.emit1("Floor", {cx.emit1("Div", {cx.operand("self", f), cx.operand("other", f)})});
  cx.out(0, cx.cast(q, f, dt));
}
MX_ATEN_LOWER(lower_floor_divide, "aten.floor_divide", "aten.floor_divide_");

// elu(self, alpha=1, scale=1, input_scale=1):
//   scale * (x > 0 ? x : alpha * (exp(x * input_scale) - 1))
void lower_elu(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  const double alpha = cx.float_arg("alpha", 1.0), scale = cx.float_arg("scale", 1.0);
  const double input_scale = cx.float_arg("input_scale", 1.0);
  if (scale == 1.0 && input_scale == 1.0)
    return cx.out(0, cx.emit1("Elu", {x}, {attr("alpha", static_cast<float>(alpha))}));
  const std::string neg =
      cx.emit1("Mul", {cx.cscalar(alpha, dt),
                       cx.emit1("Sub", {cx.emit1("Exp", {cx.emit1("Mul", {x, cx.cscalar(input_scale, dt)})}),
                                        cx.cscalar(1, dt)})});
  const std::string y = cx.emit1("Where", {cx.emit1("Greater", {x, cx.cscalar(0, dt)}), x, neg});
  cx.out(0, cx.emit1("Mul", {y, cx.cscalar(scale, dt)}));
}
MX_ATEN_LOWER(lower_elu, "aten.elu", "aten.elu_");

void lower_selu(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, cx.emit1("Selu", {cx.operand("self", dt)}));  // ONNX's defaults are ATen's constants
}
MX_ATEN_LOWER(lower_selu, "aten.selu", "aten.selu_");

void lower_celu(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const double alpha = cx.float_arg("alpha", 1.0);
  if (dt == onnx::TensorProto::FLOAT)
    return cx.out(0, cx.emit1("Celu", {cx.operand("self", dt)}, {attr("alpha", static_cast<float>(alpha))}));
  // Celu is float-only in ONNX: max(0,x) + min(0, alpha*(exp(x/alpha)-1))
  const std::string x = cx.operand("self", dt), zero = cx.cscalar(0, dt);
  const std::string e =
      cx.emit1("Sub", {cx.emit1("Exp", {cx.emit1("Div", {x, cx.cscalar(alpha, dt)})}), cx.cscalar(1, dt)});
  cx.out(0, cx.emit1("Add", {cx.emit1("Max", {x, zero}),
                             cx.emit1("Min", {zero, cx.emit1("Mul", {e, cx.cscalar(alpha, dt)})})}));
}
MX_ATEN_LOWER(lower_celu, "aten.celu", "aten.celu_");

// softplus(self, beta=1, threshold=20): x where x*beta > threshold, else
// log(1 + exp(beta x)) / beta.
void lower_softplus(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  const double beta = cx.float_arg("beta", 1.0), threshold = cx.float_arg("threshold", 20.0);
  const std::string bx = cx.emit1("Mul", {x, cx.cscalar(beta, dt)});
  const std::string soft = cx.emit1("Div", {cx.emit1("Softplus", {bx}), cx.cscalar(beta, dt)});
  cx.out(0, cx.emit1("Where", {cx.emit1("Greater", {bx, cx.cscalar(threshold, dt)}), x, soft}));
}
MX_ATEN_LOWER(lower_softplus, "aten.softplus");

void lower_mish(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  cx.out(0, cx.emit1("Mul", {x, cx.emit1("Tanh", {cx.emit1("Softplus", {x})})}));
}
MX_ATEN_LOWER(lower_mish, "aten.mish", "aten.mish_");

// Composite activations the TRAINING dialect keeps whole.
void lower_prelu(OpContext& cx) {  // prelu(self, weight [C] or [1]): weight broadcast over dim 1
  const int32_t dt = cx.out_dtype();
  const int64_t r = cx.rank_of("self");
  std::string w = cx.operand("weight", dt);
  std::vector<int64_t> trailing;
  for (int64_t k = 2; k < r; ++k) trailing.push_back(k - 1);
  if (r >= 2 && !trailing.empty()) w = cx.unsqueeze(w, trailing);
  cx.out(0, cx.emit1("PRelu", {cx.operand("self", dt), w}));
}
MX_ATEN_LOWER(lower_prelu, "aten.prelu", "aten._prelu_kernel");

void lower_glu(OpContext& cx) {  // glu(self, dim=-1): a * sigmoid(b), the halves along dim
  const int32_t dt = cx.out_dtype();
  const int64_t dim = norm_dim(cx.int_arg("dim", -1), cx.rank_of("self"));
  auto halves = cx.emit("Split", {cx.operand("self", dt)}, {attr("axis", dim)}, 2);
  cx.out(0, cx.emit1("Mul", {halves[0], cx.emit1("Sigmoid", {halves[1]})}));
}
MX_ATEN_LOWER(lower_glu, "aten.glu");

void lower_log_sigmoid(OpContext& cx) {  // -softplus(-x)
  const int32_t dt = cx.out_dtype();
  cx.out(0, cx.emit1("Neg", {cx.emit1("Softplus", {cx.emit1("Neg", {cx.operand("self", dt)})})}));
}
MX_ATEN_LOWER(lower_log_sigmoid, "aten.log_sigmoid", "aten.log_sigmoid_forward");

// hardshrink: x where |x| > l else 0; softshrink: x - l*sign(x) there;
// threshold(self, threshold, value): x where x > threshold else value.
void lower_shrink(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  if (cx.target().rfind("aten.threshold", 0) == 0) {
    const std::string keep = cx.emit1("Greater", {x, cx.operand("threshold", dt)});
    return cx.out(0, cx.emit1("Where", {keep, x, cx.operand("value", dt)}));
  }
  const double l = cx.float_arg("lambd", 0.5);
  const bool soft = cx.target().rfind("aten.softshrink", 0) == 0;
  cx.out(0,
         cx.emit1(soft ? "Shrink" : "Shrink", {x},
                  {attr("lambd", static_cast<float>(l)), attr("bias", static_cast<float>(soft ? l : 0.0))}));
}
MX_ATEN_LOWER(lower_shrink, "aten.hardshrink", "aten.softshrink", "aten.threshold", "aten.threshold_");

// Binary math written out: logaddexp, xlogy, hypot, copysign; lerp, addcmul, addcdiv.
void lower_binary_formula(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string& t = cx.target();
  const std::string a = cx.operand("self", dt);
  if (t.rfind("aten.lerp", 0) == 0) {  // self + weight * (end - self)
    const std::string w = cx.operand("weight", dt), e = cx.operand("end", dt);
    return cx.out(0, cx.emit1("Add", {a, cx.emit1("Mul", {w, cx.emit1("Sub", {e, a})})}));
  }
  if (t.rfind("aten.addcmul", 0) == 0 || t.rfind("aten.addcdiv", 0) == 0) {  // self + value * (t1 op t2)
    const bool mul = t.rfind("aten.addcmul", 0) == 0;
    std::string q = cx.emit1(mul ? "Mul" : "Div", {cx.operand("tensor1", dt), cx.operand("tensor2", dt)});
    if (cx.has("value")) q = cx.emit1("Mul", {q, cx.operand("value", dt)});
    return cx.out(0, cx.emit1("Add", {a, q}));
  }
  const std::string b = cx.operand("other", dt);
  if (t.rfind("aten.logaddexp", 0) == 0) {  // max + log(1 + exp(-|a - b|)), base 2 for logaddexp2
    const bool base2 = t.rfind("aten.logaddexp2", 0) == 0;
    const std::string m = cx.emit1("Max", {a, b});
    std::string d = cx.emit1("Neg", {cx.emit1("Abs", {cx.emit1("Sub", {a, b})})});
    if (base2) d = cx.emit1("Mul", {d, cx.cscalar(std::log(2.0), dt)});
    // ONNX Runtime's Softplus is float-only
    std::string sp = dt == onnx::TensorProto::DOUBLE
                         ? cx.emit1("Log", {cx.emit1("Add", {cx.emit1("Exp", {d}), cx.cscalar(1, dt)})})
                         : cx.emit1("Softplus", {d});
    if (base2) sp = cx.emit1("Div", {sp, cx.cscalar(std::log(2.0), dt)});
    // equal infinities: that infinity (ATen's), not inf - inf
    const std::string same_inf = cx.emit1("And", {emit_is_inf(cx, a, dt), cx.emit1("Equal", {a, b})});
    return cx.out(0, cx.emit1("Where", {same_inf, a, cx.emit1("Add", {m, sp})}));
  }
  if (t.rfind("aten.xlogy", 0) == 0 ||
      t.rfind("aten.special_xlogy", 0) == 0) {  // 0 where self == 0 (unless other is NaN)
    const std::string prod = cx.emit1("Mul", {a, cx.emit1("Log", {b})});
    const std::string zero = cx.emit1(
        "And", {cx.emit1("Equal", {a, cx.cscalar(0, dt)}), cx.emit1("Not", {emit_is_nan(cx, b, dt)})});
    return cx.out(0, cx.emit1("Where", {zero, cx.cscalar(0, dt), prod}));
  }
  if (t.rfind("aten.hypot", 0) == 0)
    return cx.out(0, cx.emit1("Sqrt", {cx.emit1("Add", {cx.emit1("Mul", {a, a}), cx.emit1("Mul", {b, b})})}));
  // copysign: |a| with b's sign bit (-0.0 counts as negative only through 1/b)
  const std::string neg =
      cx.emit1("Or", {cx.emit1("Less", {b, cx.cscalar(0, dt)}),
                      cx.emit1("Less", {cx.emit1("Reciprocal", {b}), cx.cscalar(0, dt)})});
  const std::string m = cx.emit1("Abs", {a});
  cx.out(0, cx.emit1("Where", {neg, cx.emit1("Neg", {m}), m}));
}
MX_ATEN_LOWER(lower_binary_formula, "aten.logaddexp", "aten.logaddexp2", "aten.xlogy", "aten.special_xlogy",
              "aten.hypot", "aten.copysign", "aten.lerp", "aten.addcmul", "aten.addcdiv");

void lower_frac_sgn(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  if (cx.target().rfind("aten.sgn", 0) == 0) return cx.out(0, cx.emit1("Sign", {x}));
  cx.out(0, cx.emit1("Sub", {x, truncated(cx, x)}));
}
MX_ATEN_LOWER(lower_frac_sgn, "aten.frac", "aten.sgn");

// nan_to_num(self, nan=0, posinf=max, neginf=lowest) on floats.
void lower_nan_to_num(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  std::string x = cx.operand("self", dt);
  if (!mx::aten_onnx::is_floating(dt)) return cx.out(0, cx.emit1("Identity", {x}));
  const bool half = dt == onnx::TensorProto::FLOAT16;
  const double big = dt == onnx::TensorProto::DOUBLE ? 1.7976931348623157e308
                     : half                          ? 65504.0
                                                     : 3.4028234663852886e38;
  x = cx.emit1("Where",
               {emit_is_nan(cx, x, dt), cx.cscalar(cx.has("nan") ? cx.float_arg("nan") : 0.0, dt), x});
  x = cx.emit1("Where", {emit_is_inf(cx, x, dt, true, false),
                         cx.cscalar(cx.has("posinf") ? cx.float_arg("posinf") : big, dt), x});
  x = cx.emit1("Where", {emit_is_inf(cx, x, dt, false, true),
                         cx.cscalar(cx.has("neginf") ? cx.float_arg("neginf") : -big, dt), x});
  cx.out(0, x);
}
MX_ATEN_LOWER(lower_nan_to_num, "aten.nan_to_num");

// logit(self, eps=None) = log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given.
void lower_logit(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  std::string p = cx.operand("self", dt);
  if (cx.has("eps")) {
    const double eps = cx.float_arg("eps");
    p = cx.emit1("Min", {cx.emit1("Max", {p, cx.cscalar(eps, dt)}), cx.cscalar(1 - eps, dt)});
  }
  cx.out(0, cx.emit1("Log", {cx.emit1("Div", {p, cx.emit1("Sub", {cx.cscalar(1, dt), p})})}));
}
MX_ATEN_LOWER(lower_logit, "aten.logit", "aten.logit_", "aten.special_logit");

// sinc(x) = sin(pi x) / (pi x), 1 at 0.
void lower_sinc(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt);
  const std::string px = cx.emit1("Mul", {x, cx.cscalar(M_PI, dt)});
  const std::string zero = cx.emit1("Equal", {x, cx.cscalar(0, dt)});
  const std::string safe = cx.emit1("Where", {zero, cx.cscalar(1, dt), px});
  cx.out(0, cx.emit1("Where", {zero, cx.cscalar(1, dt), cx.emit1("Div", {cx.emit1("Sin", {safe}), safe})}));
}
MX_ATEN_LOWER(lower_sinc, "aten.sinc", "aten.special_sinc");

// signbit: x < 0, and -0.0 (whose reciprocal is -inf); false for unsigned/bool.
void lower_signbit(OpContext& cx) {
  const Value& v = cx.value_of("self");
  if (!mx::aten_onnx::is_floating(v.dtype)) {
    const std::string zero = cx.cast(cx.ci64s(0), onnx::TensorProto::INT64, v.dtype);
    return cx.out(0, cx.emit1("Less", {v.onnx, zero}));
  }
  const std::string zero = cx.cscalar(0, v.dtype);
  cx.out(0, cx.emit1("Or", {cx.emit1("Less", {v.onnx, zero}),
                            cx.emit1("Less", {cx.emit1("Reciprocal", {v.onnx}), zero})}));
}
MX_ATEN_LOWER(lower_signbit, "aten.signbit");

// ldexp(self, other) = self * 2^other.
void lower_ldexp(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, cx.emit1("Mul", {cx.operand("self", dt),
                             cx.emit1("Pow", {cx.cscalar(2, dt), cx.operand("other", dt)})}));
}
MX_ATEN_LOWER(lower_ldexp, "aten.ldexp");

void lower_angle_units(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const double f = cx.op() == "deg2rad" ? M_PI / 180.0 : 180.0 / M_PI;
  cx.out(0, cx.emit1("Mul", {cx.operand("self", dt), cx.cscalar(f, dt)}));
}
MX_ATEN_LOWER(lower_angle_units, "aten.deg2rad", "aten.rad2deg");

// heaviside(self, values): 0 below zero, 1 above, `values` at zero.
void lower_heaviside(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt), zero = cx.cscalar(0, dt);
  const std::string step = cx.emit1("Where", {cx.emit1("Greater", {x, zero}), cx.cscalar(1, dt), zero});
  cx.out(0, cx.emit1("Where", {cx.emit1("Equal", {x, zero}), cx.operand("values", dt), step}));
}
MX_ATEN_LOWER(lower_heaviside, "aten.heaviside");

// float_power(self, exponent): Pow in double (the op's result dtype),
// whatever the operands' dtypes.
void lower_float_power(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, cx.emit1("Pow", {cx.operand("self", dt), cx.operand("exponent", dt)}));
}
MX_ATEN_LOWER(lower_float_power, "aten.float_power");

// isclose(self, other, rtol=1e-5, atol=1e-8, equal_nan=False):
// |a - b| <= atol + rtol * |b|, or a == b (equal infinities), or both NaN
// when equal_nan.
void lower_isclose(OpContext& cx) {
  const Value& a = cx.value_of("self");
  const int32_t dt = mx::aten_onnx::is_floating(a.dtype) ? a.dtype : onnx::TensorProto::DOUBLE;
  const std::string x = cx.operand("self", dt), y = cx.operand("other", dt);
  const std::string tol =
      cx.emit1("Add", {cx.cscalar(cx.float_arg("atol", 1e-8), dt),
                       cx.emit1("Mul", {cx.cscalar(cx.float_arg("rtol", 1e-5), dt), cx.emit1("Abs", {y})})});
  std::string close =
      cx.emit1("Or", {cx.emit1("Equal", {x, y}),
                      cx.emit1("LessOrEqual", {cx.emit1("Abs", {cx.emit1("Sub", {x, y})}), tol})});
  if (cx.bool_arg("equal_nan", false))
    close = cx.emit1("Or", {close, cx.emit1("And", {emit_is_nan(cx, x, dt), emit_is_nan(cx, y, dt)})});
  cx.out(0, close);
}
MX_ATEN_LOWER(lower_isclose, "aten.isclose");

}  // namespace
}  // namespace mx::aten_onnx
