#include "shape_exec.hpp"

#include "shape_rules.hpp"

#include <cstdio>
#include <exception>
#include <cstdlib>
#include <unordered_set>

namespace mx::torchscript {
namespace {

// Returns v with every tensor (in lists and tuples too) replaced by f(t);
// the same IValue when nothing changed, so that list identity (in-place
// list ops such as aten::append) is kept.
template <class F>
c10::IValue map_tensors(const c10::IValue& v, const F& f, bool& changed, int depth = 0) {
  if (v.isTensor()) {
    at::Tensor t = f(v.toTensor());
    if (t.unsafeGetTensorImpl() == v.toTensor().unsafeGetTensorImpl()) return v;
    changed = true;
    return t;
  }
  if (depth > 8 || !(v.isList() || v.isTuple())) return v;
  std::vector<c10::IValue> items;
  bool inner = false;
  if (v.isList())
    for (const c10::IValue& e : v.toListRef()) items.push_back(map_tensors(e, f, inner, depth + 1));
  else
    for (const c10::IValue& e : v.toTupleRef().elements())
      items.push_back(map_tensors(e, f, inner, depth + 1));
  if (!inner) return v;
  changed = true;
  if (v.isTuple()) return c10::ivalue::Tuple::create(std::move(items));
  c10::impl::GenericList r(v.toList().elementType());
  for (auto& e : items) r.push_back(std::move(e));
  return r;
}
template <class F>
c10::IValue map_tensors(const c10::IValue& v, const F& f) {
  bool changed = false;
  return map_tensors(v, f, changed);
}

template <class F>
void each_tensor(const c10::IValue& v, const F& f, int depth = 0) {
  if (v.isTensor()) return f(v.toTensor());
  if (depth > 8) return;
  if (v.isList())
    for (const c10::IValue& e : v.toListRef()) each_tensor(e, f, depth + 1);
  if (v.isTuple())
    for (const c10::IValue& e : v.toTupleRef().elements()) each_tensor(e, f, depth + 1);
}

at::Tensor to_meta(const at::Tensor& t) {
  if (!t.defined() || t.is_meta()) return t;
  return at::empty_strided(t.sizes(), t.strides(), t.options().device(at::kMeta));
}

// A real tensor of t's shape, strides and dtype, filled with `fill`: zeros
// are valid indices and keep every shape rule's checks happy; ones are the
// fallback for kernels that check values (an integer division, a
// triangular factor's diagonal).
at::Tensor stand_in(const at::Tensor& t, double fill) {
  if (!t.defined() || !t.is_meta()) return t;
  return at::empty_strided(t.sizes(), t.strides(), t.options().device(at::kCPU)).fill_(fill);
}

// MXTS_SHOW_STAND_INS=1 (stderr) or =FILE (appended): which ops ran on
// stand-ins and why their meta run failed (finding ops for shape_rules).
void report_stand_in(const tj::Node* n, const char* why) {
  const char* to = std::getenv("MXTS_SHOW_STAND_INS");
  if (!to) return;
  FILE* f = std::string(to) == "1" ? stderr : std::fopen(to, "a");
  if (!f) return;
  std::string w = why;
  w = w.substr(0, w.find('\n'));
  std::fprintf(f, "mxts: stand-in run for %s (meta: %.200s)\n", n->kind().toQualString(), w.c_str());
  if (f != stderr) std::fclose(f);
}

bool is_meta_device(const c10::IValue& v) {
  return v.isDevice() && v.toDevice().is_meta();
}

// Meta execution: devices named by the node (x.to(device), factories with
// device=...) become meta, and a factory without one allocates on meta.
void devices_to_meta(const tj::Node* n, tj::Stack& stack) {
  const auto* schema = n->maybeSchema();
  for (size_t k = 0; k < stack.size(); ++k) {
    if (stack[k].isDevice() && stack[k].toDevice().is_cpu()) stack[k] = c10::Device(at::kMeta);
    else if (stack[k].isNone() && schema && k < schema->arguments().size() &&
             schema->arguments()[k].name() == "device")
      stack[k] = c10::Device(at::kMeta);
  }
}

// Results of meta execution: tensors stay meta, a device they report is
// the CPU (prim::device of an input folds into later static code).
void devices_to_cpu(tj::Stack& stack) {
  for (auto& v : stack)
    if (is_meta_device(v)) v = c10::Device(at::kCPU);
}

}  // namespace

bool holds_meta(const c10::IValue& v) {
  bool meta = false;
  each_tensor(v, [&](const at::Tensor& t) { meta |= t.defined() && t.is_meta(); });
  return meta;
}

bool data_dependent_op(const tj::Node* n, const tj::Stack& inputs) {
  static const std::unordered_set<std::string> always = {"aten::item",           "aten::Int",
                                                         "aten::Float",          "aten::Bool",
                                                         "aten::IntImplicit",    "aten::FloatImplicit",
                                                         "aten::ScalarImplicit", "aten::tolist",
                                                         "prim::tolist",         "aten::_local_scalar_dense",
                                                         "aten::is_nonzero",     "aten::nonzero",
                                                         "aten::nonzero_numpy",  "aten::argwhere",
                                                         "aten::masked_select",  "aten::unique",
                                                         "aten::_unique",        "aten::_unique2",
                                                         "aten::unique_dim",     "aten::unique_consecutive",
                                                         "aten::bincount",       "aten::equal",
                                                         "aten::allclose",       "aten::__bool__"};
  const std::string kind = n->kind().toQualString();
  if (always.count(kind)) return true;
  // torch.where(cond) is nonzero(cond) as a tuple
  if (kind == "aten::where") return inputs.size() == 1;
  // repeats given as a tensor: the output length is their sum
  if (kind == "aten::repeat_interleave") return !(inputs.size() > 1 && inputs[1].isInt());
  // one_hot without num_classes: the class count is the input's maximum
  if (kind == "aten::one_hot") return inputs.size() > 1 && inputs[1].isInt() && inputs[1].toInt() < 0;
  // boolean-mask indexing: the output length is the number of true entries
  if (kind == "aten::index" && inputs.size() > 1) {
    bool mask = false;
    each_tensor(inputs[1], [&](const at::Tensor& t) {
      mask |= t.defined() && (t.scalar_type() == at::kBool || t.scalar_type() == at::kByte);
    });
    return mask;
  }
  return false;
}

void exec_shapes(const tj::Node* n, tj::Stack& stack, const ExecHooks& hooks,
                 std::set<std::string>* stand_in_ops) {
  bool any_meta = false;
  int64_t real_elems = 0;
  for (const auto& v : stack)
    each_tensor(v, [&](const at::Tensor& t) {
      if (!t.defined()) return;
      if (t.is_meta()) any_meta = true;
      else real_elems += t.numel();
    });

  if (!any_meta && real_elems <= kRealLimit) {
    // Shape arithmetic and small tensors made from it: the real value.
    hooks.run(stack);
    for (auto& v : stack)
      if (v.isTensor() && v.toTensor().defined() && v.toTensor().numel() > kRealLimit)
        v = to_meta(v.toTensor());
    return;
  }
  if (any_meta && data_dependent_op(n, stack)) hooks.data_dependent_error();

  tj::Stack meta;
  meta.reserve(stack.size());
  for (const auto& v : stack) meta.push_back(map_tensors(v, to_meta));
  devices_to_meta(n, meta);
  if (apply_shape_rule(n, meta)) {
    stack = std::move(meta);
    return;
  }
  try {
    hooks.run(meta);
    devices_to_cpu(meta);
    stack = std::move(meta);
    return;
  } catch (const std::exception& e) {
    report_stand_in(n, e.what());
    // No meta kernel (or a meta kernel stricter than the CPU one): run
    // once on zero-filled stand-ins below; a genuine shape error fails
    // there too, with the CPU kernel's message.
  }
  if (data_dependent_op(n, stack)) hooks.data_dependent_error();
  auto stand_ins = [&](double fill) {
    tj::Stack real;
    real.reserve(stack.size());
    for (const auto& v : stack)
      real.push_back(map_tensors(v, [fill](const at::Tensor& t) { return stand_in(t, fill); }));
    return real;
  };
  tj::Stack real = stand_ins(0.0);
  try {
    hooks.run(real);
  } catch (const std::exception&) {
    // The zeros' error is the one to report if ones fail too.
    auto zeros_error = std::current_exception();
    tj::Stack ones = stand_ins(1.0);
    try {
      hooks.run(ones);
    } catch (const std::exception&) {
      std::rethrow_exception(zeros_error);
    }
    real = std::move(ones);
  }
  for (auto& v : real) v = map_tensors(v, to_meta);
  if (stand_in_ops) stand_in_ops->insert(n->kind().toQualString());
  stack = std::move(real);
}

}  // namespace mx::torchscript
