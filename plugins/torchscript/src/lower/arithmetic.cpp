// Arithmetic with torch type promotion (the promoted dtype comes from
// executing the node): add/sub/rsub/mul/div/remainder/pow, maximum/minimum,
// lerp, addcmul/addcdiv; list concatenation (`+` on lists).
#include <cmath>

#include "ctx.h"

namespace mxts {
namespace {

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

}  // namespace
}  // namespace mxts
