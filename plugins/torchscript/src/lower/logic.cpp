// Comparisons, logical and bitwise ops, isnan/isinf/isfinite, and the
// selections they feed: where, masked_fill.
#include "ctx.h"

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

void lower_isnan(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  std::string x = cx.tensor(0);
  if (!at::isFloatingType(cx.dtype(0))) cx.unsupported("isnan/isinf on integer tensors");
  if (k == "aten::isnan") cx.out(0, cx.emit1("IsNaN", {x}));
  else if (k == "aten::isinf") cx.out(0, cx.emit1("IsInf", {x}));
  else cx.out(0, cx.emit1("Not", {cx.emit1("Or", {cx.emit1("IsNaN", {x}), cx.emit1("IsInf", {x})})}));
}
MXTS_LOWER(lower_isnan, "aten::isnan", "aten::isinf", "aten::isfinite");

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
