// SymInt arithmetic: sym_size / sym_numel and Python's operators on
// SymInts (_operator.add/sub/mul/floordiv, torch.sym_max/min), computed as
// 0-d int64 ONNX tensors when dynamic, folded when static. Runtime
// assertions (_assert_scalar, sym_constrain_range*) hold by construction
// for the sizes the program accepts and emit nothing.
#include <algorithm>
#include <onnx/onnx_pb.h>

#include "lower_ctx.hpp"
#include "json_integers.hpp"

namespace mxte {
namespace {

void lower_sym_size(LowerCtx& cx) {
  const auto& v = cx.value_of("self");
  const int64_t dim = norm_dim(cx.int_arg("dim"), static_cast<int64_t>(v.shape.size()));
  if (v.shape.at(dim).is_static) return cx.out_sym(0, "", v.shape[dim].value);
  cx.out_sym(0, cx.dim_size(v.onnx, dim), std::nullopt);
}
MXTE_LOWER(lower_sym_size, "aten.sym_size.int");

void lower_sym_numel(LowerCtx& cx) {
  const auto& v = cx.value_of("self");
  int64_t n = 1;
  bool known = true;
  for (const auto& d : v.shape) {
    known &= d.is_static;
    n *= d.value;
  }
  if (known) return cx.out_sym(0, "", n);
  cx.out_sym(0, cx.emit1("Size", {v.onnx}), std::nullopt);
}
MXTE_LOWER(lower_sym_numel, "aten.sym_numel.default");

void lower_no_op(LowerCtx&) {}
MXTE_LOWER(lower_no_op, "aten._assert_scalar.default", "aten.sym_constrain_range_for_size.default",
           "aten.sym_constrain_range.default", "aten._assert_tensor_metadata.default",
           "aten._assert_async.msg");

// Operand k of a Python operator node (its inputs are positional).
std::pair<std::optional<int64_t>, std::string> operand(LowerCtx& cx, size_t k) {
  const json& a = cx.node->at("inputs").at(k).at("arg");
  if (a.contains("as_int")) return {as_int64(a.at("as_int")), ""};
  const json& s = a.at("as_sym_int");
  if (s.contains("as_int")) return {as_int64(s.at("as_int")), ""};
  const auto& v = cx.values.at(s.at("as_name").get<std::string>());
  return {v.int_value, v.onnx};
}

void lower_operator(LowerCtx& cx) {
  const std::string op = cx.target.substr(cx.target.rfind('.') + 1);
  auto [a, an] = operand(cx, 0);
  if (op == "neg") {
    if (a) return cx.out_sym(0, "", -*a);
    return cx.out_sym(0, cx.emit1("Neg", {an}), std::nullopt);
  }
  auto [b, bn] = operand(cx, 1);
  if (a && b) {
    int64_t r = 0;
    if (op == "add") r = *a + *b;
    else if (op == "sub") r = *a - *b;
    else if (op == "mul") r = *a * *b;
    else if (op == "floordiv") r = *b ? (*a / *b - ((*a % *b != 0) && ((*a < 0) != (*b < 0)))) : 0;
    else if (op == "mod") r = *b ? ((*a % *b) + *b) % *b : 0;
    else if (op == "sym_max") r = std::max(*a, *b);
    else if (op == "sym_min") r = std::min(*a, *b);
    else cx.unsupported("SymInt operator " + op);
    return cx.out_sym(0, "", r);
  }
  std::string x = a ? cx.ci64s(*a) : an, y = b ? cx.ci64s(*b) : bn;
  static const std::map<std::string, std::string> ops = {{"add", "Add"}, {"sub", "Sub"},         {"mul", "Mul"},
                                                         {"sym_max", "Max"}, {"sym_min", "Min"}, {"mod", "Mod"}};
  if (op == "floordiv") {  // sizes are non-negative: integer Div is floor division
    return cx.out_sym(0, cx.emit1("Div", {x, y}), std::nullopt);
  }
  auto it = ops.find(op);
  if (it == ops.end()) cx.unsupported("SymInt operator " + op);
  cx.out_sym(0, cx.emit1(it->second, {x, y}), std::nullopt);
}
MXTE_LOWER(lower_operator, "_operator.add", "_operator.sub", "_operator.mul", "_operator.floordiv", "_operator.neg",
           "_operator.mod", "torch.sym_max", "torch.sym_min");

}  // namespace
}  // namespace mxte
