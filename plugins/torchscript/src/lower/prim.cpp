// prim list/tuple ops, scalar <-> tensor conversions, size queries,
// identities (contiguous, detach, eval-mode dropout).
#include "ctx.h"

namespace mxts {
namespace {

void lower_list_construct(Ctx& cx, const tj::Node* n) {
  auto v = std::make_shared<Val>();
  v->iv = cx.ex_out[0];
  v->has_elems = true;
  for (size_t k = 0; k < n->inputs().size(); ++k) v->elems.push_back(cx.in(k));
  cx.out_val(0, v);
}
MXTS_LOWER(lower_list_construct, "prim::ListConstruct", "prim::TupleConstruct");

VP element(Ctx& cx, const VP& list, int64_t idx, size_t out_idx) {
  if (list->has_elems) {
    int64_t n = static_cast<int64_t>(list->elems.size());
    return list->elems.at(idx < 0 ? idx + n : idx);
  }
  if (!list->name.empty()) {  // 1-D tensor holding an int list (e.g. aten::size)
    auto v = std::make_shared<Val>();
    v->iv = cx.ex_out.at(out_idx);
    v->name = cx.emit1("Gather", {list->name, cx.ci64s(idx)}, {attr("axis", int64_t{0})});
    v->onnx_type = list->onnx_type;
    return v;
  }
  cx.unsupported("indexing a list whose elements are unknown");
}

void lower_list_unpack(Ctx& cx, const tj::Node* n) {
  VP l = cx.in(0);
  for (size_t k = 0; k < n->outputs().size(); ++k) cx.out_val(k, element(cx, l, k, k));
}
MXTS_LOWER(lower_list_unpack, "prim::ListUnpack", "prim::TupleUnpack");

void lower_getitem(Ctx& cx, const tj::Node*) { cx.out_val(0, element(cx, cx.in(0), cx.arg_int(1), 0)); }
MXTS_LOWER(lower_getitem, "prim::TupleIndex", "aten::__getitem__", "prim::ListIndex");

void lower_num_to_tensor(Ctx& cx, const tj::Node*) {
  VP s = cx.in(0);
  std::string n = cx.tensor(s);
  cx.out(0, cx.cast(n, cx.onnx_type(s), onnx_type_of(cx.out_dtype())));
}
MXTS_LOWER(lower_num_to_tensor, "prim::NumToTensor", "aten::scalar_tensor");

void lower_int(Ctx& cx, const tj::Node*) { cx.out(0, cx.scalar_i64(cx.in(0)), onnx::TensorProto::INT64); }
MXTS_LOWER(lower_int, "aten::Int", "aten::IntImplicit");

void lower_float(Ctx& cx, const tj::Node*) {
  VP s = cx.in(0);
  cx.out(0, cx.cast(cx.tensor(s), cx.onnx_type(s), onnx::TensorProto::DOUBLE), onnx::TensorProto::DOUBLE);
}
MXTS_LOWER(lower_float, "aten::Float", "aten::FloatImplicit");

void lower_scalar_implicit(Ctx& cx, const tj::Node*) {
  VP s = cx.in(0);
  cx.out(0, cx.tensor(s), cx.onnx_type(s));
}
MXTS_LOWER(lower_scalar_implicit, "aten::ScalarImplicit", "aten::item");

void lower_size(Ctx& cx, const tj::Node* n) {
  std::string x = cx.tensor(0);
  if (n->inputs().size() >= 2) {
    cx.out(0, cx.dim_size(x, norm_dim(cx.arg_int(1), cx.rank(0))), onnx::TensorProto::INT64);
  } else {
    cx.out(0, cx.shape_of(x), onnx::TensorProto::INT64);
  }
}
MXTS_LOWER(lower_size, "aten::size");

void lower_numel(Ctx& cx, const tj::Node*) {
  std::string s = cx.shape_of(cx.tensor(0));
  cx.out(0, cx.emit1("ReduceProd", {s}, {attr("keepdims", int64_t{0})}), onnx::TensorProto::INT64);
}
MXTS_LOWER(lower_numel, "aten::numel");

// Values fully determined by static facts of the example (rank, dtype, device).
void lower_static(Ctx& cx, const tj::Node* n) {
  for (size_t k = 0; k < n->outputs().size(); ++k) {
    auto v = std::make_shared<Val>();
    v->iv = cx.ex_out[k];
    v->is_static = true;
    cx.out_val(k, v);
  }
}
MXTS_LOWER(lower_static, "aten::dim", "prim::dtype", "prim::device", "prim::is_cuda", "aten::len",
           "aten::__is__", "aten::__isnot__", "prim::layout", "aten::is_floating_point",
           "prim::requires_grad");

void lower_identity(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  // dropout(x, p, train): identity in eval, and for p == 0 in training mode too
  // (torchvision's swin calls F.dropout(attn, p=attention_dropout) with the
  // default training=True and p=0)
  if (k.find("dropout") != std::string::npos && n->inputs().size() >= 3 && cx.arg_bool(2) && cx.arg_double(1) != 0.0)
    cx.unsupported("dropout in training mode (call model.eval() before tracing)");
  cx.same(0, cx.in(0));
}
MXTS_LOWER(lower_identity, "aten::contiguous", "aten::detach", "aten::clone", "prim::unchecked_cast",
           "aten::alias", "aten::dropout", "aten::dropout_", "aten::feature_dropout", "aten::alpha_dropout",
           "aten::feature_alpha_dropout", "aten::lift_fresh", "aten::lift", "aten::detach_",
           "prim::data", "aten::positive");

}  // namespace
}  // namespace mxts
