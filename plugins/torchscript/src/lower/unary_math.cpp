// Unary math: ops with a 1:1 ONNX op (neg, sqrt, exp, log, erf, tanh,
// sigmoid, relu, abs, reciprocal, floor, ceil, sin, cos, sign, round),
// rsqrt, and those without one (log1p, expm1, log2, log10, exp2, trunc,
// frac, square, the rest of trigonometry, sgn).
#include <cmath>

#include "ctx.h"

namespace mxts {
namespace {

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

void lower_unary_more(Ctx& cx, const tj::Node* n) {
  static const std::unordered_map<std::string, std::string> ops = {
      {"tan", "Tan"}, {"asin", "Asin"}, {"acos", "Acos"}, {"atan", "Atan"}, {"sinh", "Sinh"},
      {"cosh", "Cosh"}, {"asinh", "Asinh"}, {"acosh", "Acosh"}, {"atanh", "Atanh"}, {"sgn", "Sign"}};
  std::string k = n->kind().toUnqualString();
  if (k.back() == '_') k.pop_back();
  auto dt = cx.out_dtype();
  std::string x = cx.tensor_as(0, dt);
  std::string y;
  if (ops.count(k)) y = cx.emit1(ops.at(k), {x});
  else if (k == "log1p") y = cx.emit1("Log", {cx.emit1("Add", {x, cx.cscalar(1, dt)})});
  else if (k == "expm1") y = cx.emit1("Sub", {cx.emit1("Exp", {x}), cx.cscalar(1, dt)});
  else if (k == "log2") y = cx.emit1("Div", {cx.emit1("Log", {x}), cx.cscalar(std::log(2.0), dt)});
  else if (k == "log10") y = cx.emit1("Div", {cx.emit1("Log", {x}), cx.cscalar(std::log(10.0), dt)});
  else if (k == "exp2") y = cx.emit1("Pow", {cx.cscalar(2, dt), x});
  else if (k == "square") y = cx.emit1("Mul", {x, x});
  else if (k == "trunc" || k == "fix" || k == "frac") {
    std::string t = at::isFloatingType(dt)
                        ? cx.emit1("Mul", {cx.emit1("Sign", {x}), cx.emit1("Floor", {cx.emit1("Abs", {x})})})
                        : x;
    y = k == "frac" ? cx.emit1("Sub", {x, t}) : t;
  } else cx.unsupported("unary op");
  cx.out(0, y);
}
MXTS_LOWER(lower_unary_more, "aten::tan", "aten::asin", "aten::acos", "aten::atan", "aten::sinh", "aten::cosh",
           "aten::asinh", "aten::acosh", "aten::atanh", "aten::sgn", "aten::log1p", "aten::expm1", "aten::log2",
           "aten::log10", "aten::exp2", "aten::square", "aten::trunc", "aten::fix", "aten::frac", "aten::log1p_",
           "aten::square_", "aten::trunc_", "aten::sqrt_", "aten::rsqrt_", "aten::abs_");

}  // namespace
}  // namespace mxts
