// prim list and tuple ops: ListConstruct/TupleConstruct, ListUnpack/
// TupleUnpack, TupleIndex/ListIndex/__getitem__.
#include "ctx.hpp"

namespace mx::torchscript {
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

void lower_getitem(Ctx& cx, const tj::Node*) {
  cx.out_val(0, element(cx, cx.in(0), cx.arg_int(1), 0));
}
MXTS_LOWER(lower_getitem, "prim::TupleIndex", "aten::__getitem__", "prim::ListIndex");

}  // namespace
}  // namespace mx::torchscript
