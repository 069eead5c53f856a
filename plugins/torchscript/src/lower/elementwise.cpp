// Element-wise ops: arithmetic with torch type promotion (the promoted
// dtype comes from executing the node), comparisons, logical ops, unary
// math and activations, where / masked_fill / clamp.
#include <cmath>

#include "lower/common.h"

namespace mxts {
namespace {

// Promoted dtype of two operands (tensor/scalar), as torch computes it.
at::ScalarType promote(Ctx& cx, size_t a, size_t b) {
  auto ia = cx.in(a)->iv, ib = cx.in(b)->iv;
  auto scalar_of = [](const c10::IValue& v) -> c10::Scalar {
    if (v.isInt()) return v.toInt();
    if (v.isBool()) return v.toBool();
    return v.toDouble();
  };
  if (ia.isTensor() && ib.isTensor()) return at::result_type(ia.toTensor(), ib.toTensor());
  if (ia.isTensor()) return at::result_type(ia.toTensor(), scalar_of(ib));
  if (ib.isTensor()) return at::result_type(ib.toTensor(), scalar_of(ia));
  if (ia.isDouble() || ib.isDouble()) return at::kDouble;
  return at::kLong;
}

std::string scaled(Ctx& cx, const std::string& x, size_t alpha_idx, at::ScalarType dt) {
  if (cx.n_in() <= alpha_idx || cx.is_none(alpha_idx)) return x;
  double a = cx.arg_double(alpha_idx);
  if (a == 1.0) return x;
  return cx.emit1("Mul", {x, cx.cscalar(a, dt)});
}

// elements of a list value (static lists expanded into static ints)
std::vector<VP> list_elems(Ctx& cx, const VP& l) {
  if (l->has_elems) return l->elems;
  if (!l->is_static) cx.unsupported("list concatenation of a dynamic list");
  std::vector<VP> r;
  for (const auto& e : l->iv.toListRef()) {
    auto v = std::make_shared<Val>();
    v->iv = e;
    v->is_static = true;
    r.push_back(v);
  }
  return r;
}

void lower_add(Ctx& cx, const tj::Node*) {
  if (cx.in(0)->iv.isList()) {  // aten::add.t: list concatenation
    auto v = std::make_shared<Val>();
    v->iv = cx.ex_out[0];
    v->has_elems = true;
    v->elems = list_elems(cx, cx.in(0));
    for (auto& e : list_elems(cx, cx.in(1))) v->elems.push_back(e);
    cx.out_val(0, v);
    return;
  }
  auto dt = cx.out_dtype();
  cx.out(0, cx.emit1("Add", {cx.tensor_as(0, dt), scaled(cx, cx.tensor_as(1, dt), 2, dt)}));
}
MXTS_LOWER(lower_add, "aten::add", "aten::add_");

void lower_sub(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_dtype();
  cx.out(0, cx.emit1("Sub", {cx.tensor_as(0, dt), scaled(cx, cx.tensor_as(1, dt), 2, dt)}));
}
MXTS_LOWER(lower_sub, "aten::sub", "aten::sub_", "aten::subtract");

void lower_rsub(Ctx& cx, const tj::Node*) {  // other - alpha * self
  auto dt = cx.out_dtype();
  cx.out(0, cx.emit1("Sub", {cx.tensor_as(1, dt), scaled(cx, cx.tensor_as(0, dt), 2, dt)}));
}
MXTS_LOWER(lower_rsub, "aten::rsub");

void lower_mul(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_dtype();
  if (dt == at::kBool) {
    cx.out(0, cx.emit1("And", {cx.tensor_as(0, dt), cx.tensor_as(1, dt)}));
    return;
  }
  cx.out(0, cx.emit1("Mul", {cx.tensor_as(0, dt), cx.tensor_as(1, dt)}));
}
MXTS_LOWER(lower_mul, "aten::mul", "aten::mul_", "aten::multiply");

std::string trunc(Ctx& cx, const std::string& x, at::ScalarType dt) {
  // trunc(x) = sign(x) * floor(|x|)
  return cx.emit1("Mul", {cx.emit1("Sign", {x}), cx.emit1("Floor", {cx.emit1("Abs", {x})})});
}

void lower_div(Ctx& cx, const tj::Node* n) {
  auto dt = cx.out_dtype();
  std::string mode;
  std::string k = n->kind().toQualString();
  if (k == "aten::floor_divide" || k == "aten::floor_divide_") mode = "floor";
  else if (cx.n_in() >= 3 && !cx.is_none(2)) mode = cx.arg_string(2);
  std::string a = cx.tensor_as(0, dt), b = cx.tensor_as(1, dt);
  if (mode == "floor" && !at::isFloatingType(dt)) {
    // integer floor division: (a - pymod(a, b)) / b is exact (Mod fmod=0 takes the divisor's sign)
    std::string m = cx.emit1("Mod", {a, b}, {attr("fmod", int64_t{0})});
    cx.out(0, cx.emit1("Div", {cx.emit1("Sub", {a, m}), b}));
    return;
  }
  std::string q = cx.emit1("Div", {a, b});
  if (!mode.empty() && at::isFloatingType(dt)) q = mode == "floor" ? cx.emit1("Floor", {q}) : trunc(cx, q, dt);
  // integer Div truncates: exact for rounding_mode='trunc'
  cx.out(0, q);
}
MXTS_LOWER(lower_div, "aten::div", "aten::div_", "aten::floor_divide", "aten::true_divide", "aten::floor_divide_",
           "aten::true_divide_", "aten::divide");

void lower_remainder(Ctx& cx, const tj::Node* n) {
  // remainder: sign of the divisor (Python); fmod: sign of the dividend (C)
  auto dt = cx.out_dtype();
  bool is_fmod = std::string(n->kind().toQualString()) == "aten::fmod";
  std::string a = cx.tensor_as(0, dt), b = cx.tensor_as(1, dt);
  if (at::isFloatingType(dt) && !is_fmod) {  // a - floor(a / b) * b
    std::string q = cx.emit1("Floor", {cx.emit1("Div", {a, b})});
    cx.out(0, cx.emit1("Sub", {a, cx.emit1("Mul", {q, b})}));
    return;
  }
  cx.out(0, cx.emit1("Mod", {a, b}, {attr("fmod", static_cast<int64_t>(is_fmod ? 1 : 0))}));
}
MXTS_LOWER(lower_remainder, "aten::remainder", "aten::fmod", "aten::remainder_", "aten::fmod_");

void lower_pow(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_dtype();
  cx.out(0, cx.emit1("Pow", {cx.tensor_as(0, dt), cx.tensor_as(1, dt)}));
}
MXTS_LOWER(lower_pow, "aten::pow", "aten::pow_");

void lower_compare(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  if (k.back() == '_') k.pop_back();
  auto dt = promote(cx, 0, 1);
  std::string a = cx.tensor_as(0, dt), b = cx.tensor_as(1, dt), r;
  if (k == "aten::eq") r = cx.emit1("Equal", {a, b});
  else if (k == "aten::ne" || k == "aten::not_equal") r = cx.emit1("Not", {cx.emit1("Equal", {a, b})});
  else if (k == "aten::lt" || k == "aten::less") r = cx.emit1("Less", {a, b});
  else if (k == "aten::gt" || k == "aten::greater") r = cx.emit1("Greater", {a, b});
  else if (k == "aten::le" || k == "aten::less_equal") r = cx.emit1("LessOrEqual", {a, b});
  else r = cx.emit1("GreaterOrEqual", {a, b});
  cx.out(0, cx.cast(r, onnx::TensorProto::BOOL, onnx_type_of(cx.out_dtype())));
}
MXTS_LOWER(lower_compare, "aten::eq", "aten::ne", "aten::lt", "aten::gt", "aten::le", "aten::ge", "aten::eq_",
           "aten::ne_", "aten::lt_", "aten::gt_", "aten::le_", "aten::ge_", "aten::greater", "aten::less",
           "aten::greater_equal", "aten::less_equal", "aten::not_equal");

void lower_logical(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  auto dt = cx.out_dtype();
  bool bitwise = k.find("bitwise") != std::string::npos || k.find("__") != std::string::npos;
  if (bitwise && dt != at::kBool) cx.unsupported("bitwise ops on integer tensors");
  std::string op = k.find("and") != std::string::npos ? "And" : k.find("xor") != std::string::npos ? "Xor" : "Or";
  std::string r = cx.emit1(op, {cx.tensor_as(0, at::kBool), cx.tensor_as(1, at::kBool)});
  cx.out(0, cx.cast(r, onnx::TensorProto::BOOL, onnx_type_of(dt)));
}
MXTS_LOWER(lower_logical, "aten::logical_and", "aten::logical_or", "aten::logical_xor", "aten::__and__",
           "aten::__or__", "aten::__xor__", "aten::bitwise_and", "aten::bitwise_or", "aten::bitwise_xor",
           "aten::logical_and_", "aten::logical_or_", "aten::logical_xor_", "aten::__iand__", "aten::__ior__",
           "aten::__ixor__", "aten::bitwise_and_", "aten::bitwise_or_", "aten::bitwise_xor_");

void lower_not(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  if (k == "aten::bitwise_not" && cx.dtype(0) != at::kBool) cx.unsupported("bitwise_not on integer tensors");
  std::string r = cx.emit1("Not", {cx.tensor_as(0, at::kBool)});
  cx.out(0, cx.cast(r, onnx::TensorProto::BOOL, onnx_type_of(cx.out_dtype())));
}
MXTS_LOWER(lower_not, "aten::logical_not", "aten::bitwise_not", "aten::logical_not_", "aten::bitwise_not_");

// Unary ops mapping 1:1 to an ONNX op (input cast to the output dtype).
void lower_unary(Ctx& cx, const tj::Node* n) {
  static const std::unordered_map<std::string, std::string> ops = {
      {"neg", "Neg"}, {"sqrt", "Sqrt"}, {"exp", "Exp"}, {"log", "Log"}, {"erf", "Erf"},
      {"tanh", "Tanh"}, {"sigmoid", "Sigmoid"}, {"relu", "Relu"}, {"abs", "Abs"},
      {"reciprocal", "Reciprocal"}, {"floor", "Floor"}, {"ceil", "Ceil"}, {"sin", "Sin"},
      {"cos", "Cos"}, {"sign", "Sign"}, {"round", "Round"}};
  std::string k = n->kind().toUnqualString();
  if (k.back() == '_') k.pop_back();
  auto dt = cx.out_dtype();
  cx.out(0, cx.emit1(ops.at(k), {cx.tensor_as(0, dt)}));
}
MXTS_LOWER(lower_unary, "aten::neg", "aten::sqrt", "aten::exp", "aten::log", "aten::erf", "aten::tanh",
           "aten::sigmoid", "aten::relu", "aten::abs", "aten::reciprocal", "aten::floor", "aten::ceil",
           "aten::sin", "aten::cos", "aten::sign", "aten::round", "aten::relu_", "aten::tanh_",
           "aten::sigmoid_", "aten::neg_", "aten::exp_");

void lower_rsqrt(Ctx& cx, const tj::Node*) {
  cx.out(0, cx.emit1("Reciprocal", {cx.emit1("Sqrt", {cx.tensor_as(0, cx.out_dtype())})}));
}
MXTS_LOWER(lower_rsqrt, "aten::rsqrt");

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

void lower_where(Ctx& cx, const tj::Node*) {
  if (cx.n_in() == 1) cx.unsupported("where(cond) (nonzero)");
  auto dt = cx.out_dtype();
  cx.out(0, cx.emit1("Where", {cx.tensor_as(0, at::kBool), cx.tensor_as(1, dt), cx.tensor_as(2, dt)}));
}
MXTS_LOWER(lower_where, "aten::where", "aten::where_");

void lower_masked_fill(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_dtype();
  cx.out(0, cx.emit1("Where", {cx.tensor_as(1, at::kBool), cx.tensor_as(2, dt), cx.tensor(0)}));
}
MXTS_LOWER(lower_masked_fill, "aten::masked_fill", "aten::masked_fill_");

}  // namespace
}  // namespace mxts
