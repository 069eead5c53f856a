// Scalar overloads (scalar_lowerings.hpp): arithmetic, comparisons, logic and
// unary math on Python ints/floats/bools that depend on the model's inputs
// (a size), as 0-d ONNX tensors in the type the node produced; list `+`.
#include <cmath>

#include "ctx.hpp"
#include "scalar_lowerings.hpp"

namespace mx::torchscript {

std::unordered_map<std::string, LowerFn>& scalar_registry() {
  static std::unordered_map<std::string, LowerFn> r;
  return r;
}

namespace {

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

// The type both operands meet in: float if either is, else int (bools too).
at::ScalarType common(Ctx& cx) {
  for (size_t k = 0; k < cx.n_in(); ++k)
    if (cx.in(k)->iv.isDouble()) return at::kDouble;
  return at::kLong;
}

void lower_binary(Ctx& cx, const tj::Node* n) {
  const std::string k = n->kind().toUnqualString();
  if (k == "add" && cx.in(0)->iv.isList()) {  // aten::add.t: list concatenation
    auto v = std::make_shared<Val>();
    v->iv = cx.ex_out[0];
    v->has_elems = true;
    v->elems = list_elems(cx, cx.in(0));
    for (auto& e : list_elems(cx, cx.in(1))) v->elems.push_back(e);
    return cx.out_val(0, v);
  }
  const at::ScalarType dt = k == "div" ? at::kDouble : common(cx);
  const std::string a = cx.tensor_as(0, dt), b = cx.tensor_as(1, dt);
  std::string r;
  if (k == "add") r = cx.emit1("Add", {a, b});
  else if (k == "sub") r = cx.emit1("Sub", {a, b});
  else if (k == "mul") r = cx.emit1("Mul", {a, b});
  else if (k == "div") r = cx.emit1("Div", {a, b});
  else if (k == "pow") r = cx.emit1("Pow", {a, b});
  else if (k == "remainder" && dt == at::kDouble)
    r = cx.emit1("Sub", {a, cx.emit1("Mul", {cx.emit1("Floor", {cx.emit1("Div", {a, b})}), b})});
  else if (k == "remainder") r = cx.emit1("Mod", {a, b}, {attr("fmod", int64_t{0})});
  else if (k == "fmod") r = cx.emit1("Mod", {a, b}, {attr("fmod", int64_t{1})});
  else cx.unsupported("scalar op");
  cx.out(0, cx.cast(r, onnx_type_of(dt), onnx_type_of(cx.out_st())));
}
MXTS_LOWER_SCALARS(lower_binary, "aten::add", "aten::sub", "aten::mul", "aten::div", "aten::pow",
                   "aten::remainder", "aten::fmod");

void lower_compare(Ctx& cx, const tj::Node* n) {
  const std::string k = n->kind().toUnqualString();
  const at::ScalarType dt = common(cx);
  const std::string a = cx.tensor_as(0, dt), b = cx.tensor_as(1, dt);
  std::string r;
  if (k == "eq") r = cx.emit1("Equal", {a, b});
  else if (k == "ne") r = cx.emit1("Not", {cx.emit1("Equal", {a, b})});
  else if (k == "lt") r = cx.emit1("Less", {a, b});
  else if (k == "gt") r = cx.emit1("Greater", {a, b});
  else if (k == "le") r = cx.emit1("LessOrEqual", {a, b});
  else r = cx.emit1("GreaterOrEqual", {a, b});
  cx.out(0, r, onnx::TensorProto::BOOL);
}
MXTS_LOWER_SCALARS(lower_compare, "aten::eq", "aten::ne", "aten::lt", "aten::gt", "aten::le", "aten::ge");

void lower_logic(Ctx& cx, const tj::Node* n) {
  const std::string k = n->kind().toUnqualString();
  const at::ScalarType b = at::kBool;
  if (k == "__not__") return cx.out(0, cx.emit1("Not", {cx.tensor_as(0, b)}), onnx::TensorProto::BOOL);
  const std::string op = k == "__and__" ? "And" : k == "__or__" ? "Or" : "Xor";
  cx.out(0, cx.emit1(op, {cx.tensor_as(0, b), cx.tensor_as(1, b)}), onnx::TensorProto::BOOL);
}
MXTS_LOWER_SCALARS(lower_logic, "aten::__and__", "aten::__or__", "aten::__xor__", "aten::__not__");

void lower_unary(Ctx& cx, const tj::Node* n) {
  static const std::unordered_map<std::string, std::string> ops = {
      {"neg", "Neg"},     {"sqrt", "Sqrt"}, {"exp", "Exp"}, {"log", "Log"}, {"abs", "Abs"},
      {"floor", "Floor"}, {"ceil", "Ceil"}, {"sin", "Sin"}, {"cos", "Cos"}, {"tanh", "Tanh"}};
  const std::string k = n->kind().toUnqualString();
  const at::ScalarType out = cx.out_st();
  const bool to_int = k == "floor" || k == "ceil";  // math.floor/ceil of a float is an int
  const at::ScalarType dt = to_int || !at::isIntegralType(out, true) ? at::kDouble : out;
  const std::string r = cx.emit1(ops.at(k), {cx.tensor_as(0, dt)});
  cx.out(0, cx.cast(r, onnx_type_of(dt), onnx_type_of(out)));
}
MXTS_LOWER_SCALARS(lower_unary, "aten::neg", "aten::sqrt", "aten::exp", "aten::log", "aten::abs",
                   "aten::floor", "aten::ceil", "aten::sin", "aten::cos", "aten::tanh");

}  // namespace
}  // namespace mx::torchscript
