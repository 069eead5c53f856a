// More element-wise math: unary functions without a 1:1 ONNX op
// (log1p, expm1, log2, log10, trunc, frac, square), trigonometry, isnan/isinf,
// maximum/minimum, lerp, addcmul/addcdiv, outer, einsum.
#include <cmath>

#include "lower/common.h"

namespace mxts {
namespace {

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

void lower_isnan(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  std::string x = cx.tensor(0);
  if (!at::isFloatingType(cx.dtype(0))) cx.unsupported("isnan/isinf on integer tensors");
  if (k == "aten::isnan") cx.out(0, cx.emit1("IsNaN", {x}));
  else if (k == "aten::isinf") cx.out(0, cx.emit1("IsInf", {x}));
  else cx.out(0, cx.emit1("Not", {cx.emit1("Or", {cx.emit1("IsNaN", {x}), cx.emit1("IsInf", {x})})}));
}
MXTS_LOWER(lower_isnan, "aten::isnan", "aten::isinf", "aten::isfinite");

void lower_maximum(Ctx& cx, const tj::Node* n) {
  auto dt = cx.out_dtype();
  std::string k = n->kind().toQualString();
  bool mx = k == "aten::maximum" || k == "aten::fmax";
  cx.out(0, cx.emit1(mx ? "Max" : "Min", {cx.tensor_as(0, dt), cx.tensor_as(1, dt)}));
}
MXTS_LOWER(lower_maximum, "aten::maximum", "aten::minimum", "aten::fmax", "aten::fmin");

void lower_lerp(Ctx& cx, const tj::Node*) {  // start + weight * (end - start)
  auto dt = cx.out_dtype();
  std::string s = cx.tensor_as(0, dt);
  cx.out(0, cx.emit1("Add", {s, cx.emit1("Mul", {cx.tensor_as(2, dt), cx.emit1("Sub", {cx.tensor_as(1, dt), s})})}));
}
MXTS_LOWER(lower_lerp, "aten::lerp", "aten::lerp_");

void lower_addcmul(Ctx& cx, const tj::Node* n) {  // self + value * t1 (* or /) t2
  auto dt = cx.out_dtype();
  bool div = std::string(n->kind().toQualString()).find("addcdiv") != std::string::npos;
  std::string p = cx.emit1(div ? "Div" : "Mul", {cx.tensor_as(1, dt), cx.tensor_as(2, dt)});
  if (cx.n_in() > 3 && cx.arg_double(3) != 1.0) p = cx.emit1("Mul", {p, cx.tensor_as(3, dt)});
  cx.out(0, cx.emit1("Add", {cx.tensor_as(0, dt), p}));
}
MXTS_LOWER(lower_addcmul, "aten::addcmul", "aten::addcdiv", "aten::addcmul_", "aten::addcdiv_");

void lower_outer(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_dtype();
  cx.out(0, cx.emit1("Mul", {cx.unsqueeze(cx.tensor_as(0, dt), {1}), cx.unsqueeze(cx.tensor_as(1, dt), {0})}));
}
MXTS_LOWER(lower_outer, "aten::outer", "aten::ger");

void lower_einsum(Ctx& cx, const tj::Node*) {
  std::string eq;
  for (char c : cx.arg_string(0)) if (c != ' ') eq += c;
  auto dt = cx.out_dtype();
  std::vector<std::string> ins;
  for (auto& e : elems_of(cx, cx.in(1))) ins.push_back(cx.tensor_as(e, dt));
  cx.out(0, cx.emit1("Einsum", ins, {attr("equation", eq)}));
}
MXTS_LOWER(lower_einsum, "aten::einsum");

}  // namespace
}  // namespace mxts
