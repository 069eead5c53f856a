// SymInt arithmetic: sym_size / sym_numel and Python's operators on
// SymInts (_operator.add/sub/mul/floordiv, torch.sym_max/min), computed as
// 0-d int64 ONNX tensors when dynamic, folded when static. SymFloats
// (torch.sym_float, true division, a float operand; the core dialect's
// interpolation arithmetic) are 0-d double tensors, back to SymInts
// through math.trunc / floor / ceil. Runtime
// assertions (_assert_scalar, sym_constrain_range*) hold by construction
// for the sizes the program accepts and emit nothing.
// They stay in this frontend (MXTE_LOWER, not aten_onnx/src/lower): they
// read and bind the program's SymInt/SymFloat values by name, which the
// shared argument interface does not model (TorchScript has no SymInts).
#include <algorithm>
#include <cmath>
#include "mx/onnx_proto.hpp"

#include "lower_ctx.hpp"
#include "json_integers.hpp"

namespace mx::torch_export {
namespace {

void lower_sym_size(LowerCtx& cx) {
  const auto& v = cx.value_of("self");
  const int64_t dim = norm_dim(cx.int_arg("dim"), static_cast<int64_t>(v.shape.size()));
  if (v.shape.at(dim).is_static) return cx.out_sym(0, "", v.shape[dim].value);
  cx.out_sym(0, cx.dim_size(v.onnx, dim), std::nullopt);
}
// A complex tensor's size is PyTorch's (the pair axis is past its rank).
MXTE_LOWER(lower_sym_size, "aten.sym_size.int", "complex.aten.sym_size");

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
           "aten._assert_async.msg", "complex.aten._assert_tensor_metadata.default");

// torchvision's roi_align and friends call _cuda_version() for a device
// check whose result the program drops: nothing to emit. Left unbound, a
// node that did read it would be refused as reading an undefined value.
MXTE_LOWER(lower_no_op, "torchvision._cuda_version.default");

// associative_scan's TRAINING program calls this before its HOP: it loads
// torch's decomposition table and returns nothing.
MXTE_LOWER(lower_no_op, "torch._functorch.predispatch.lazy_load_decompositions");

// Operand k of a Python operator node (its inputs are positional): a
// static int, or an ONNX value and its type (int64 SymInt, double SymFloat).
struct SymOperand {
  std::optional<int64_t> known;
  std::string onnx;
  int32_t dtype = onnx::TensorProto::INT64;
};

SymOperand operand(LowerCtx& cx, size_t k) {
  const json& a = cx.node->at("inputs").at(k).at("arg");
  if (a.contains("as_int")) return {as_int64(a.at("as_int")), "", onnx::TensorProto::INT64};
  if (a.contains("as_float"))
    return {std::nullopt, cx.cscalar(json_float(a.at("as_float")), onnx::TensorProto::DOUBLE),
            onnx::TensorProto::DOUBLE};
  const json& s = a.contains("as_sym_float") ? a.at("as_sym_float") : a.at("as_sym_int");
  if (s.contains("as_int")) return {as_int64(s.at("as_int")), "", onnx::TensorProto::INT64};
  if (s.contains("as_float"))
    return {std::nullopt, cx.cscalar(json_float(s.at("as_float")), onnx::TensorProto::DOUBLE),
            onnx::TensorProto::DOUBLE};
  auto it = cx.values.find(s.at("as_name").get<std::string>());
  if (it == cx.values.end()) cx.unsupported("a symbolic value is used before anything defines it");
  return {it->second.int_value, it->second.onnx, it->second.dtype};
}

std::string onnx_of(LowerCtx& cx, const SymOperand& o, int32_t dtype) {
  return cx.cast(o.known ? cx.ci64s(*o.known) : o.onnx, o.known ? onnx::TensorProto::INT64 : o.dtype, dtype);
}

// Binds output 0, a SymFloat, to a 0-d double.
void out_sym_float(LowerCtx& cx, const std::string& onnx_name) {
  const json& o = cx.node->at("outputs").at(0);
  if (!o.contains("as_sym_float")) return cx.out_sym(0, onnx_name, std::nullopt);
  Value v;
  v.kind = Value::sym_int;
  v.onnx = onnx_name;
  v.dtype = onnx::TensorProto::DOUBLE;
  cx.values[o.at("as_sym_float").at("as_name").get<std::string>()] = std::move(v);
}

void lower_float_operator(LowerCtx& cx, const std::string& op, const SymOperand& a, const SymOperand& b) {
  static const std::map<std::string, std::string> ops = {
      {"add", "Add"},     {"sub", "Sub"},     {"mul", "Mul"}, {"truediv", "Div"},
      {"sym_max", "Max"}, {"sym_min", "Min"}, {"pow", "Pow"}};
  auto it = ops.find(op);
  if (it == ops.end()) cx.unsupported("SymFloat operator " + op);
  const int32_t d = onnx::TensorProto::DOUBLE;
  out_sym_float(cx, cx.emit1(it->second, {onnx_of(cx, a, d), onnx_of(cx, b, d)}));
}

void lower_operator(LowerCtx& cx) {
  const std::string op = cx.target().substr(cx.target().rfind('.') + 1);
  const SymOperand a = operand(cx, 0);
  if (op == "neg") {
    if (a.known) return cx.out_sym(0, "", -*a.known);
    if (a.dtype == onnx::TensorProto::DOUBLE) return out_sym_float(cx, cx.emit1("Neg", {a.onnx}));
    return cx.out_sym(0, cx.emit1("Neg", {a.onnx}), std::nullopt);
  }
  const SymOperand b = operand(cx, 1);
  // pow is a SymFloat unless torch.export says the result is a SymInt
  // (a non-negative integer exponent)
  const bool float_result = cx.node->at("outputs").at(0).contains("as_sym_float");
  const bool floating = (!a.known && a.dtype == onnx::TensorProto::DOUBLE) ||
                        (!b.known && b.dtype == onnx::TensorProto::DOUBLE) || op == "truediv" ||
                        (op == "pow" && float_result);
  if (floating) return lower_float_operator(cx, op, a, b);
  if (a.known && b.known) {
    const int64_t x = *a.known, y = *b.known;
    int64_t r = 0;
    if (op == "add") r = x + y;
    else if (op == "sub") r = x - y;
    else if (op == "mul") r = x * y;
    else if (op == "floordiv") r = y ? (x / y - ((x % y != 0) && ((x < 0) != (y < 0)))) : 0;
    else if (op == "mod") r = y ? ((x % y) + y) % y : 0;
    else if (op == "sym_max") r = std::max(x, y);
    else if (op == "sym_min") r = std::min(x, y);
    else if (op == "pow" && y >= 0)
      r = static_cast<int64_t>(std::llround(std::pow(static_cast<double>(x), static_cast<double>(y))));
    else cx.unsupported("SymInt operator " + op);
    return cx.out_sym(0, "", r);
  }
  const int32_t i64 = onnx::TensorProto::INT64;
  std::string x = onnx_of(cx, a, i64), y = onnx_of(cx, b, i64);
  static const std::map<std::string, std::string> ops = {
      {"add", "Add"}, {"sub", "Sub"}, {"mul", "Mul"}, {"sym_max", "Max"}, {"sym_min", "Min"}, {"mod", "Mod"}};
  if (op == "floordiv") {  // sizes are non-negative: integer Div is floor division
    return cx.out_sym(0, cx.emit1("Div", {x, y}), std::nullopt);
  }
  if (op == "pow") {  // an integer power: exact in double for the sizes programs have
    const int32_t f = onnx::TensorProto::DOUBLE;
    const std::string p = cx.emit1("Pow", {cx.cast(x, i64, f), cx.cast(y, i64, f)});
    return cx.out_sym(0, cx.cast(cx.emit1("Round", {p}), f, i64), std::nullopt);
  }
  auto it = ops.find(op);
  if (it == ops.end()) cx.unsupported("SymInt operator " + op);
  cx.out_sym(0, cx.emit1(it->second, {x, y}), std::nullopt);
}
MXTE_LOWER(lower_operator, "_operator.add", "_operator.sub", "_operator.mul", "_operator.floordiv",
           "_operator.neg", "_operator.mod", "_operator.truediv", "_operator.pow", "torch.sym_max",
           "torch.sym_min");

// torch.sym_float(a): a SymInt as a SymFloat.
void lower_sym_float(LowerCtx& cx) {
  const SymOperand a = operand(cx, 0);
  out_sym_float(cx, onnx_of(cx, a, onnx::TensorProto::DOUBLE));
}
MXTE_LOWER(lower_sym_float, "torch.sym_float");

// math.trunc / math.floor / math.ceil / torch.sym_int of a SymFloat.
void lower_float_to_int(LowerCtx& cx) {
  const SymOperand a = operand(cx, 0);
  if (a.known) return cx.out_sym(0, "", *a.known);
  const std::string fn = cx.target().substr(cx.target().rfind('.') + 1);
  std::string x = onnx_of(cx, a, onnx::TensorProto::DOUBLE);
  if (fn == "floor") x = cx.emit1("Floor", {x});
  else if (fn == "ceil") x = cx.emit1("Ceil", {x});
  else x = cx.emit1("Mul", {cx.emit1("Sign", {x}), cx.emit1("Floor", {cx.emit1("Abs", {x})})});  // trunc
  cx.out_sym(0, cx.cast(x, onnx::TensorProto::DOUBLE, onnx::TensorProto::INT64), std::nullopt);
}
MXTE_LOWER(lower_float_to_int, "math.trunc", "math.floor", "math.ceil", "torch.sym_int");

// _local_scalar_dense(self) (Tensor.item()): a one-element tensor as a
// SymInt or SymFloat of the program - a 0-d int64 / double.
void lower_local_scalar(LowerCtx& cx) {
  const Value& v = cx.value_of("self");
  const json& o = cx.node->at("outputs").at(0);
  const bool is_float = o.contains("as_sym_float");
  const bool is_bool = o.contains("as_sym_bool");
  if (!is_float && !is_bool && !o.contains("as_sym_int"))
    cx.unsupported("item() whose result is not a SymInt, SymFloat or SymBool");
  const int32_t to = is_float  ? onnx::TensorProto::DOUBLE
                     : is_bool ? onnx::TensorProto::BOOL
                               : onnx::TensorProto::INT64;
  const std::string scalar = cx.emit1("Reshape", {cx.cast(v.onnx, v.dtype, to), cx.ci64({})});
  Value s;
  s.kind = Value::sym_int;
  s.onnx = scalar;
  s.dtype = to;
  const json& sym = is_float ? o.at("as_sym_float") : is_bool ? o.at("as_sym_bool") : o.at("as_sym_int");
  cx.values[sym.at("as_name").get<std::string>()] = std::move(s);
}
MXTE_LOWER(lower_local_scalar, "aten._local_scalar_dense", "aten.item");

// sym_stride.int(self, dim) / sym_storage_offset(self): the layout torch
// recorded for the value; a symbolic one is refused (the ONNX graph has
// no layouts to read it from), but for a storage offset, which a view's
// offset into its base says (DeBERTa's relative embeddings sliced at a
// start read from a tensor).
void lower_sym_layout(LowerCtx& cx) {
  const json& self = cx.arg("self") ? *cx.arg("self") : json();
  if (!self.contains("as_tensor")) cx.unsupported("a layout query of something that is not a tensor");
  const TensorMeta& m = cx.meta_of(self.at("as_tensor").at("name").get<std::string>());
  Dim d = m.storage_offset;
  if (cx.target().rfind("aten.sym_stride", 0) == 0) {
    const int64_t k = norm_dim(cx.int_arg("dim"), static_cast<int64_t>(m.strides.size()));
    if (k < 0 || k >= static_cast<int64_t>(m.strides.size()))
      cx.unsupported("a stride of a dim the tensor lacks");
    d = m.strides[k];
  }
  if (!d.is_static && cx.target().rfind("aten.sym_storage_offset", 0) == 0)
    return cx.out_sym(0, cx.storage_offset_of(self.at("as_tensor").at("name").get<std::string>()),
                      std::nullopt);
  if (!d.is_static) cx.unsupported("a symbolic stride (" + d.expr + ")");
  cx.out_sym(0, "", d.value);
}
MXTE_LOWER(lower_sym_layout, "aten.sym_stride.int", "aten.sym_storage_offset.default");

// Comparisons of SymInts (_operator.ge, ...): SymBools, read by runtime
// assertions (which emit nothing, so these end as dead nodes) or by
// torch.cond predicates - a 0-d bool.
void lower_sym_compare(LowerCtx& cx) {
  static const std::map<std::string, std::string> ops = {{"ge", "GreaterOrEqual"}, {"gt", "Greater"},
                                                         {"le", "LessOrEqual"},    {"lt", "Less"},
                                                         {"eq", "Equal"},          {"ne", "Equal"}};
  const std::string op = cx.target().substr(cx.target().rfind('.') + 1);
  const json& o = cx.node->at("outputs").at(0);
  if (!o.contains("as_sym_bool")) cx.unsupported("a comparison whose result is not a SymBool");
  // Integers compare as int64 (a dim against a bound: no Cast, as exact);
  // a SymFloat or float operand makes both doubles.
  const SymOperand a = operand(cx, 0), b = operand(cx, 1);
  auto is_float = [](const SymOperand& o) {
    return o.dtype == onnx::TensorProto::DOUBLE || o.dtype == onnx::TensorProto::FLOAT;
  };
  const int32_t work = is_float(a) || is_float(b) ? onnx::TensorProto::DOUBLE : onnx::TensorProto::INT64;
  std::string r = cx.emit1(ops.at(op), {onnx_of(cx, a, work), onnx_of(cx, b, work)});
  if (op == "ne") r = cx.emit1("Not", {r});
  Value v;
  v.kind = Value::sym_int;
  v.onnx = r;
  v.dtype = onnx::TensorProto::BOOL;
  cx.values[o.at("as_sym_bool").at("as_name").get<std::string>()] = std::move(v);
}
MXTE_LOWER(lower_sym_compare, "_operator.ge", "_operator.gt", "_operator.le", "_operator.lt", "_operator.eq",
           "_operator.ne");

// torch.sym_not(SymBool) (DeBERTa's `not torch.jit.is_tracing()`-style
// shape tests): the negated 0-d bool, a SymBool.
void lower_sym_not(LowerCtx& cx) {
  const json& o = cx.node->at("outputs").at(0);
  if (!o.contains("as_sym_bool")) cx.unsupported("a sym_not whose result is not a SymBool");
  const json& a = cx.node->at("inputs").at(0).at("arg");
  const json& b = a.contains("as_sym_bool") ? a.at("as_sym_bool") : a;
  std::string in;
  if (b.contains("as_bool")) {
    in = cx.cscalar(b.at("as_bool").get<bool>() ? 1 : 0, onnx::TensorProto::BOOL);
  } else if (b.contains("as_name")) {
    auto it = cx.values.find(b.at("as_name").get<std::string>());
    if (it == cx.values.end()) cx.unsupported("a sym_not of a SymBool nothing defines");
    in = cx.cast(it->second.onnx, it->second.dtype, onnx::TensorProto::BOOL);
  } else {
    cx.unsupported("a sym_not of neither a SymBool nor a bool");
  }
  Value v;
  v.kind = Value::sym_int;
  v.onnx = cx.emit1("Not", {in});
  v.dtype = onnx::TensorProto::BOOL;
  cx.values[o.at("as_sym_bool").at("as_name").get<std::string>()] = std::move(v);
}
MXTE_LOWER(lower_sym_not, "torch.sym_not");

// A SymBool operand (as_bool, or a SymBool by name): a 0-d bool, or the
// constant when it is one.
std::string sym_bool_operand(LowerCtx& cx, size_t k, std::optional<bool>& known) {
  const json& a = cx.node->at("inputs").at(k).at("arg");
  const json& b = a.contains("as_sym_bool") ? a.at("as_sym_bool") : a;
  if (b.contains("as_bool")) {
    known = b.at("as_bool").get<bool>();
    return cx.cscalar(*known ? 1 : 0, onnx::TensorProto::BOOL);
  }
  if (!b.contains("as_name")) cx.unsupported("a SymBool operand that is neither a bool nor a name");
  auto it = cx.values.find(b.at("as_name").get<std::string>());
  if (it == cx.values.end()) cx.unsupported("a SymBool is used before anything defines it");
  return cx.cast(it->second.onnx, it->second.dtype, onnx::TensorProto::BOOL);
}

// torch.sym_ite(b, t, f): t where the SymBool b holds, else f - a Where of
// 0-d values of the result's kind (transformers' torch_compilable_check
// turns `tensor.all()` into item() and sym_ite(item, 1, 0), read by
// runtime assertions).
void lower_sym_ite(LowerCtx& cx) {
  const json& o = cx.node->at("outputs").at(0);
  std::optional<bool> cond_known;
  const std::string cond = sym_bool_operand(cx, 0, cond_known);
  if (o.contains("as_sym_bool")) {
    std::optional<bool> kt, kf;
    const std::string t = sym_bool_operand(cx, 1, kt), f = sym_bool_operand(cx, 2, kf);
    Value v;
    v.kind = Value::sym_int;
    v.onnx = cond_known ? (*cond_known ? t : f) : cx.emit1("Where", {cond, t, f});
    v.dtype = onnx::TensorProto::BOOL;
    cx.values[o.at("as_sym_bool").at("as_name").get<std::string>()] = std::move(v);
    return;
  }
  const SymOperand t = operand(cx, 1), f = operand(cx, 2);
  const bool floating = o.contains("as_sym_float");
  if (!floating && !o.contains("as_sym_int"))
    cx.unsupported("a sym_ite whose result is not a SymInt, SymFloat or SymBool");
  if (cond_known) {
    const SymOperand& pick = *cond_known ? t : f;
    if (!floating && pick.known) return cx.out_sym(0, "", *pick.known);
  }
  if (!floating && t.known && f.known && *t.known == *f.known) return cx.out_sym(0, "", *t.known);
  const int32_t dt = floating ? onnx::TensorProto::DOUBLE : onnx::TensorProto::INT64;
  const std::string r = cond_known ? onnx_of(cx, *cond_known ? t : f, dt)
                                   : cx.emit1("Where", {cond, onnx_of(cx, t, dt), onnx_of(cx, f, dt)});
  if (floating) return out_sym_float(cx, r);
  cx.out_sym(0, r, std::nullopt);
}
MXTE_LOWER(lower_sym_ite, "torch.sym_ite");

// _operator.and_ / or_ of SymBools (`(a == 0) | (a > 0)` in a
// torch._check): a 0-d bool. Bitwise operators on SymInts are refused.
void lower_sym_bool_op(LowerCtx& cx) {
  const json& o = cx.node->at("outputs").at(0);
  const std::string op = cx.target().substr(cx.target().rfind('.') + 1);
  if (!o.contains("as_sym_bool")) cx.unsupported("_operator." + op + " whose result is not a SymBool");
  std::optional<bool> ka, kb;
  const std::string a = sym_bool_operand(cx, 0, ka), b = sym_bool_operand(cx, 1, kb);
  Value v;
  v.kind = Value::sym_int;
  v.onnx = cx.emit1(op == "and_" ? "And" : "Or", {a, b});
  v.dtype = onnx::TensorProto::BOOL;
  cx.values[o.at("as_sym_bool").at("as_name").get<std::string>()] = std::move(v);
}
MXTE_LOWER(lower_sym_bool_op, "_operator.and_", "_operator.or_");

}  // namespace
}  // namespace mx::torch_export
