#include "dynamic_dims.hpp"

#include <stdexcept>

#include "shape_exec.hpp"

namespace mx::torchscript {
namespace {

// A fresh copy of v (tensors, lists, tuples): meta tensors as new meta
// tensors, real ones cloned, so that an in-place op of the shifted run
// leaves the main run's value alone.
c10::IValue fresh_copy(const c10::IValue& v, int depth = 0) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    if (!t.defined()) return v;
    if (t.is_meta()) return at::empty_strided(t.sizes(), t.strides(), t.options());
    return t.clone();
  }
  if (depth > 8) return v;
  if (v.isList()) {
    c10::impl::GenericList r(v.toList().elementType());
    for (const c10::IValue& e : v.toListRef()) r.push_back(fresh_copy(e, depth + 1));
    return r;
  }
  if (v.isTuple()) {
    std::vector<c10::IValue> items;
    for (const c10::IValue& e : v.toTupleRef().elements()) items.push_back(fresh_copy(e, depth + 1));
    return c10::ivalue::Tuple::create(std::move(items));
  }
  return v;
}

bool writes_an_argument(const tj::Node* n) {
  const auto* schema = n->maybeSchema();
  if (!schema) return true;  // prim ops: be safe
  for (const auto& a : schema->arguments())
    if (a.alias_info() && a.alias_info()->isWrite()) return true;
  return false;
}

// The i-th element of a shifted list or tuple, or nullptr when it has none
// (another length, not a list).
const c10::IValue* shifted_element(const c10::IValue& list, size_t i, size_t n) {
  if (list.isTuple()) {
    const auto& el = list.toTupleRef().elements();
    return el.size() == n ? &el[i] : nullptr;
  }
  if (list.isList()) {
    const auto& el = list.toListRef();
    return el.size() == n ? &el[i] : nullptr;
  }
  return nullptr;
}

}  // namespace

int64_t shifted_size(int64_t example) {
  return example > 0 ? 2 * example : 1;
}

Shift shift_of_inputs(const std::vector<VP>& ins) {
  Shift s = Shift::none;
  for (const auto& v : ins) {
    if (v->shift == Shift::unknown) return Shift::unknown;
    if (v->shift == Shift::known) s = Shift::known;
  }
  return s;
}

std::optional<tj::Stack> run_shifted(const tj::Node* n, const std::vector<VP>& ins,
                                     const std::function<void(tj::Stack&)>& run) {
  const bool writes = writes_an_argument(n);
  tj::Stack stack;
  for (const auto& v : ins) {
    if (v->shift == Shift::known) stack.push_back(v->shifted);
    else stack.push_back(writes ? fresh_copy(v->iv) : v->iv);
  }
  try {
    ExecHooks hooks{run, [] { throw std::runtime_error("data-dependent"); }};
    exec_shapes(n, stack, hooks, nullptr);
  } catch (...) {
    return std::nullopt;  // every dim of the outputs counts as dynamic
  }
  if (stack.size() != n->outputs().size()) return std::nullopt;
  return stack;
}

VP with_shift(const VP& v, Shift shift, const c10::IValue* shifted) {
  if (v->is_static || v->is_module) return v;  // folded: baked like every constant
  auto c = std::make_shared<Val>(*v);
  c->shift = shifted || shift != Shift::known ? shift : Shift::unknown;
  c->shifted = c->shift == Shift::known ? *shifted : c10::IValue();
  for (size_t i = 0; i < c->elems.size(); ++i) {
    const c10::IValue* e =
        c->shift == Shift::known ? shifted_element(c->shifted, i, c->elems.size()) : nullptr;
    c->elems[i] = with_shift(c->elems[i], c->shift, e);
  }
  return c;
}

std::vector<bool> dynamic_dims(const at::Tensor& example, Shift shift, const c10::IValue& shifted) {
  const auto rank = static_cast<size_t>(example.dim());
  if (shift == Shift::none) return std::vector<bool>(rank, false);
  if (shift == Shift::unknown || !shifted.isTensor() || shifted.toTensor().dim() != example.dim())
    return std::vector<bool>(rank, true);
  std::vector<bool> dynamic(rank);
  const at::Tensor& s = shifted.toTensor();
  for (size_t k = 0; k < rank; ++k)
    dynamic[k] = s.size(static_cast<int64_t>(k)) != example.size(static_cast<int64_t>(k));
  return dynamic;
}

}  // namespace mx::torchscript
