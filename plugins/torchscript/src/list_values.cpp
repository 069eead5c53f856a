#include "list_values.hpp"

namespace mx::torchscript {

std::vector<VP> elems_of(Ctx& cx, const VP& l) {
  if (l->has_elems) return l->elems;
  std::vector<VP> r;
  if (l->is_static && (l->iv.isList() || l->iv.isTuple())) {
    auto items = l->iv.isList() ? l->iv.toListRef().vec() : l->iv.toTupleRef().elements().vec();
    for (const auto& e : items) {
      auto v = std::make_shared<Val>();
      v->iv = e;
      v->is_static = true;
      r.push_back(v);
    }
    return r;
  }
  cx.unsupported("a list whose elements are unknown");
}

}  // namespace mx::torchscript
