// Element-wise ops: unary math, binary arithmetic with ATen's alpha and
// rounding modes, comparisons and logic, where/masked_fill, clamp.
// Operands are cast to the result dtype the program recorded (ATen's type
// promotion already happened when torch.export traced the model).
#include "mx/onnx_proto.hpp"

#include <cmath>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

const std::map<std::string, std::string>& unary_ops() {
  static const std::map<std::string, std::string> m = {{"neg", "Neg"},
                                                       {"exp", "Exp"},
                                                       {"log", "Log"},
                                                       {"sqrt", "Sqrt"},
                                                       {"abs", "Abs"},
                                                       {"sin", "Sin"},
                                                       {"cos", "Cos"},
                                                       {"tanh", "Tanh"},
                                                       {"sigmoid", "Sigmoid"},
                                                       {"floor", "Floor"},
                                                       {"ceil", "Ceil"},
                                                       {"relu", "Relu"},
                                                       {"reciprocal", "Reciprocal"},
                                                       {"sign", "Sign"},
                                                       {"round", "Round"},
                                                       {"logical_not", "Not"},
                                                       {"bitwise_not", "Not"},
                                                       {"_neg_view", "Neg"},
                                                       {"special_expit", "Sigmoid"},
                                                       {"special_round", "Round"}};
  return m;
}

// ~a on integers: -a - 1 in two's complement, at any opset; unsigned
// integers need opset 18's BitwiseNot.
std::string bitwise_not(OpContext& cx, int32_t dt) {
  const std::string x = cx.operand("self", dt);
  if (mx::aten_onnx::is_signed_integer(dt)) return cx.emit1("Sub", {cx.emit1("Neg", {x}), cx.cscalar(1, dt)});
  if (cx.opset < 18) cx.unsupported("bitwise_not of an unsigned integer needs ONNX opset 18 (BitwiseNot)");
  return cx.emit1("BitwiseNot", {x});
}

// round.decimals(self, decimals): as ATen computes it, round(x * 10^d) /
// 10^d, or round(x / 10^-d) * 10^-d for a negative d (ONNX's Round and
// ATen's both round half to even).
std::string round_decimals(OpContext& cx, int32_t dt, int64_t decimals) {
  const std::string x = cx.operand("self", dt);
  const std::string scale =
      cx.cscalar(std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals)), dt);
  if (decimals < 0) return cx.emit1("Mul", {cx.emit1("Round", {cx.emit1("Div", {x, scale})}), scale});
  return cx.emit1("Div", {cx.emit1("Round", {cx.emit1("Mul", {x, scale})}), scale});
}

// The in-place variants (abs_, sqrt_, ...) stay in TRAINING-level programs;
// their value is the out-of-place one, which the frontend writes back.
void lower_unary(OpContext& cx) {
  const std::string onnx_op = unary_ops().at(cx.op());
  const int32_t dt = cx.out_dtype();
  if ((cx.op() == "round" || cx.op() == "special_round") && cx.has("decimals") && cx.int_arg("decimals") != 0)
    return cx.out(0, round_decimals(cx, dt, cx.int_arg("decimals")));
  if (cx.op() == "bitwise_not" && dt != onnx::TensorProto::BOOL) return cx.out(0, bitwise_not(cx, dt));
  std::string x = cx.operand("self", onnx_op == "Not" ? onnx::TensorProto::BOOL : dt);
  cx.out(0, cx.emit1(onnx_op, {x}));
}
MX_ATEN_LOWER(lower_unary, "aten.neg", "aten.exp", "aten.log", "aten.sqrt", "aten.abs", "aten.sin",
              "aten.cos", "aten.tanh", "aten.sigmoid", "aten.floor", "aten.ceil", "aten.relu",
              "aten.relu_", "aten.reciprocal", "aten.sign", "aten.round", "aten.logical_not",
              "aten.bitwise_not", "aten.tanh_", "aten.sigmoid_", "aten.neg_", "aten.exp_", "aten._neg_view",
              "aten.special_expit", "aten.special_round", "aten.abs_", "aten.sqrt_", "aten.log_", "aten.sin_",
              "aten.cos_", "aten.floor_", "aten.ceil_", "aten.reciprocal_", "aten.sign_",
              "aten.round_");

void lower_rsqrt(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, cx.emit1("Reciprocal", {cx.emit1("Sqrt", {cx.operand("self", dt)})}));
}
MX_ATEN_LOWER(lower_rsqrt, "aten.rsqrt");

// add/sub(self, other, alpha=1): self +- alpha * other
void lower_add_sub(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const bool sub = cx.op() == "sub" || cx.op() == "subtract";
  std::string a = cx.operand("self", dt), b = cx.operand("other", dt);
  if (cx.has("alpha") && cx.float_arg("alpha") != 1.0) b = cx.emit1("Mul", {b, cx.operand("alpha", dt)});
  cx.out(0, cx.emit1(sub ? "Sub" : "Add", {a, b}));
}
// subtract, multiply, divide, true_divide: ATen's aliases, which torch.export
// resolves and a TorchScript graph keeps.
MX_ATEN_LOWER(lower_add_sub, "aten.add", "aten.add_", "aten.sub", "aten.sub_", "aten.subtract");

// rsub(self, other, alpha=1): other - alpha * self
void lower_rsub(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  std::string a = cx.operand("self", dt), b = cx.operand("other", dt);
  if (cx.has("alpha") && cx.float_arg("alpha") != 1.0) a = cx.emit1("Mul", {a, cx.operand("alpha", dt)});
  cx.out(0, cx.emit1("Sub", {b, a}));
}
MX_ATEN_LOWER(lower_rsub, "aten.rsub");

void lower_mul(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const bool logical = dt == onnx::TensorProto::BOOL;
  cx.out(0, cx.emit1(logical ? "And" : "Mul", {cx.operand("self", dt), cx.operand("other", dt)}));
}
MX_ATEN_LOWER(lower_mul, "aten.mul", "aten.mul_", "aten.multiply");

// div(self, other, rounding_mode=None|'trunc'|'floor')
void lower_div(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string mode = cx.string_arg("rounding_mode", "");
  const bool fp = mx::aten_onnx::is_floating(dt);
  if (mode.empty() || !fp) {
    // true division on floats; on integers with a rounding mode compute in
    // float and round as asked (ATen's integer floor division).
    if (fp) {
      cx.out(0, cx.emit1("Div", {cx.operand("self", dt), cx.operand("other", dt)}));
      return;
    }
    const int32_t f = onnx::TensorProto::DOUBLE;
    std::string q = cx.emit1("Div", {cx.operand("self", f), cx.operand("other", f)});
    q = cx.emit1(mode == "trunc" ? "Identity" : "Floor", {q});
    if (mode == "trunc")
      q = cx.emit1("Cast", {q}, {attr("to", static_cast<int64_t>(onnx::TensorProto::INT64))});
    cx.out(0, cx.cast(q, mode == "trunc" ? onnx::TensorProto::INT64 : f, dt));
    return;
  }
  std::string q = cx.emit1("Div", {cx.operand("self", dt), cx.operand("other", dt)});
  if (mode == "floor") q = cx.emit1("Floor", {q});
  else if (mode == "trunc")
    q = cx.emit1("Mul", {cx.emit1("Floor", {cx.emit1("Abs", {q})}), cx.emit1("Sign", {q})});
  cx.out(0, q);
}
MX_ATEN_LOWER(lower_div, "aten.div", "aten.div_", "aten.divide", "aten.true_divide");

// pow(self, exponent). ONNX Pow has no 8/16-bit integer types: those
// compute in int64 and wrap back to the result dtype as ATen's do.
void lower_pow(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const ArgKind k = cx.arg_kind("exponent");
  if ((k == ArgKind::floating && cx.float_arg("exponent") == 2.0) ||
      (k == ArgKind::integer && cx.int_arg("exponent") == 2)) {
    std::string x = cx.operand("self", dt);
    cx.out(0, cx.emit1("Mul", {x, x}));
    return;
  }
  using TP = onnx::TensorProto;
  if (dt == TP::INT8 || dt == TP::UINT8 || dt == TP::INT16 || dt == TP::UINT16) {
    const std::string y = cx.emit1("Pow", {cx.operand("self", TP::INT64), cx.operand("exponent", TP::INT64)});
    return cx.out(0, cx.cast(y, TP::INT64, dt));
  }
  cx.out(0, cx.emit1("Pow", {cx.operand("self", dt), cx.operand("exponent", dt)}));
}
MX_ATEN_LOWER(lower_pow, "aten.pow");

// Comparisons: both operands in their promoted type (the wider of the two;
// a bool tensor against a python int compares as int64, as ATen promotes).
int32_t promoted(OpContext& cx) {
  auto kind = [&](const char* n) -> int32_t {
    const ArgKind a = cx.arg_kind(n);
    if (a == ArgKind::tensor) return cx.dtype_of(n);
    if (a == ArgKind::floating) return onnx::TensorProto::FLOAT;
    if (a == ArgKind::integer && cx.arg_kind("self") == ArgKind::tensor &&
        cx.dtype_of("self") == onnx::TensorProto::BOOL)
      return onnx::TensorProto::INT64;
    return 0;  // python int / bool: the tensor's type wins
  };
  int32_t a = kind("self"), b = kind("other");
  if (a == 0) return b ? b : onnx::TensorProto::INT64;
  if (b == 0 || a == b) return a;
  if (mx::aten_onnx::is_floating(a) != mx::aten_onnx::is_floating(b))
    return mx::aten_onnx::is_floating(a) ? a : b;
  return mx::aten_onnx::element_size(a) >= mx::aten_onnx::element_size(b) ? a : b;
}

void lower_compare(OpContext& cx) {
  static const std::map<std::string, std::string> ops = {{"eq", "Equal"},          {"lt", "Less"},
                                                         {"gt", "Greater"},        {"le", "LessOrEqual"},
                                                         {"ge", "GreaterOrEqual"}, {"ne", "Equal"}};
  static const std::map<std::string, std::string> aliases = {
      {"greater", "gt"}, {"less", "lt"}, {"greater_equal", "ge"}, {"less_equal", "le"}, {"not_equal", "ne"}};
  std::string n = cx.op();
  if (auto it = aliases.find(n); it != aliases.end()) n = it->second;
  int32_t t = promoted(cx);
  // ONNX orders no bools (Less / Greater take numbers): False < True as 0 < 1.
  if (t == onnx::TensorProto::BOOL && n != "eq" && n != "ne") t = onnx::TensorProto::UINT8;
  std::string r = cx.emit1(ops.at(n), {cx.operand("self", t), cx.operand("other", t)});
  if (n == "ne") r = cx.emit1("Not", {r});
  cx.out(0, r);
}
MX_ATEN_LOWER(lower_compare, "aten.eq", "aten.lt", "aten.gt", "aten.le", "aten.ge", "aten.ne", "aten.greater",
              "aten.less", "aten.greater_equal", "aten.less_equal", "aten.not_equal");

void lower_logical(OpContext& cx) {
  static const std::map<std::string, std::string> ops = {
      {"logical_and", "And"}, {"logical_or", "Or"}, {"bitwise_and", "And"},
      {"bitwise_or", "Or"},   {"__and__", "And"},   {"__or__", "Or"},
      {"logical_xor", "Xor"}, {"__iand__", "And"},  {"__ior__", "Or"}};
  const std::string n = cx.op();
  const int32_t dt = cx.out_dtype();
  if (dt != onnx::TensorProto::BOOL) {  // and / or of integers: opset 18's BitwiseAnd / BitwiseOr
    const std::string op = ops.at(n) == "And" ? "BitwiseAnd" : "BitwiseOr";
    if (cx.opset < 18) cx.unsupported(n + " on integers needs ONNX opset 18 (" + op + ")");
    return cx.out(0, cx.emit1(op, {cx.operand("self", dt), cx.operand("other", dt)}));
  }
  const int32_t b = onnx::TensorProto::BOOL;
  cx.out(0, cx.emit1(ops.at(n), {cx.operand("self", b), cx.operand("other", b)}));
}
MX_ATEN_LOWER(lower_logical, "aten.logical_and", "aten.logical_or", "aten.bitwise_and", "aten.bitwise_or",
              "aten.__and__", "aten.__or__", "aten.logical_xor", "aten.__iand__", "aten.__ior__");

void lower_where(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, cx.emit1("Where", {cx.operand("condition", onnx::TensorProto::BOOL), cx.operand("self", dt),
                               cx.operand("other", dt)}));
}
MX_ATEN_LOWER(lower_where, "aten.where.self", "aten.where.ScalarOther", "aten.where.ScalarSelf",
              "aten.where.Scalar");

// masked_fill(self, mask, value): Where(mask, value, self)
void lower_masked_fill(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, cx.emit1("Where", {cx.operand("mask", onnx::TensorProto::BOOL), cx.operand("value", dt),
                               cx.operand("self", dt)}));
}
MX_ATEN_LOWER(lower_masked_fill, "aten.masked_fill", "aten.masked_fill_");

// clamp to number bounds: emit_clip. Tensor bounds broadcast, which Clip's
// scalar bounds do not: Max and Min.
void lower_clamp(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  auto number = [&](const char* name) {
    const ArgKind k = cx.arg_kind(name);
    return k == ArgKind::none || k == ArgKind::integer || k == ArgKind::floating;
  };
  std::string x = cx.operand("self", dt);
  if (number("min") && number("max")) {
    const std::string lo = cx.has("min") ? cx.operand("min", dt) : "";
    const std::string hi = cx.has("max") ? cx.operand("max", dt) : "";
    return cx.out(0, mx::aten_onnx::emit_clip(cx, x, lo, hi, dt));
  }
  if (cx.has("min")) x = cx.emit1("Max", {x, cx.operand("min", dt)});
  if (cx.has("max")) x = cx.emit1("Min", {x, cx.operand("max", dt)});
  cx.out(0, x);
}
MX_ATEN_LOWER(lower_clamp, "aten.clamp", "aten.clamp_", "aten.clamp_min", "aten.clamp_max", "aten.clip");

void lower_minimum(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const bool is_max = cx.op() == "maximum" || cx.op() == "fmax";
  cx.out(0, cx.emit1(is_max ? "Max" : "Min", {cx.operand("self", dt), cx.operand("other", dt)}));
}
// fmax/fmin as maximum/minimum: they differ only where one operand is NaN.
MX_ATEN_LOWER(lower_minimum, "aten.maximum", "aten.minimum", "aten.fmax", "aten.fmin");

void lower_min_other(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const bool is_max = cx.target().rfind("aten.max", 0) == 0;
  cx.out(0, cx.emit1(is_max ? "Max" : "Min", {cx.operand("self", dt), cx.operand("other", dt)}));
}
MX_ATEN_LOWER(lower_min_other, "aten.min.other", "aten.max.other");

// fmod: the remainder with the dividend's sign (C fmod), ONNX Mod fmod=1;
// remainder: Python's sign of the divisor, Mod fmod=0 (integers only in ONNX).
void lower_fmod(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const bool fmod = cx.target().rfind("aten.fmod", 0) == 0;
  std::string a = cx.operand("self", dt), b = cx.operand("other", dt);
  if (!fmod && mx::aten_onnx::is_floating(dt)) {  // a - floor(a / b) * b
    std::string q = cx.emit1("Floor", {cx.emit1("Div", {a, b})});
    return cx.out(0, cx.emit1("Sub", {a, cx.emit1("Mul", {q, b})}));
  }
  cx.out(0, cx.emit1("Mod", {a, b}, {attr("fmod", static_cast<int64_t>(fmod))}));
}
MX_ATEN_LOWER(lower_fmod, "aten.fmod", "aten.remainder");

}  // namespace
}  // namespace mx::aten_onnx
