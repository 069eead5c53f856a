#include "walker.hpp"
#include "scalar_lowerings.hpp"

#include <ATen/core/function.h>
#include <torch/csrc/jit/api/function_impl.h>

#include "complex_values.hpp"
#include "dynamic_dims.hpp"
#include "shape_exec.hpp"
#include "view_write_back.hpp"
#include "modelexport/modelexport.h"
#include "mx/aten_onnx/lowering_plugins.hpp"
#include "mx/common/module_path.hpp"

namespace mx::torchscript {
namespace {
using mx::common::join_path;

bool is_module_object(const c10::IValue& iv) {
  return iv.isObject() && iv.toObjectRef().type()->is_module();
}

// Flags nodes that must never be folded even when all inputs are constant.
bool never_fold(const tj::Node* n) {
  std::string k = n->kind().toQualString();
  return k.find("rand") != std::string::npos || k == "aten::dropout" || k == "aten::bernoulli" ||
         k == "aten::normal";
}
// Structural prim ops the interpreter handles as instructions (no Operator):
// computed here on the example values. Returns false for other kinds.
bool exec_structural(const tj::Node* n, tj::Stack& st) {
  auto k = n->kind();
  if (k == c10::prim::ListConstruct) {
    auto lt = n->output()->type()->expect<c10::ListType>();
    c10::impl::GenericList l(lt->getElementType());
    for (auto& v : st) l.push_back(v);
    st.clear();
    st.emplace_back(std::move(l));
    return true;
  }
  if (k == c10::prim::TupleConstruct) {
    auto t = c10::ivalue::Tuple::create(std::vector<c10::IValue>(st.begin(), st.end()));
    st.clear();
    st.emplace_back(std::move(t));
    return true;
  }
  if (k == c10::prim::ListUnpack || k == c10::prim::TupleUnpack) {
    c10::IValue v = st.at(0);
    st.clear();
    if (v.isTuple())
      for (const auto& e : v.toTupleRef().elements()) st.push_back(e);
    else
      for (const auto& e : v.toListRef()) st.push_back(e);
    return true;
  }
  if (k == c10::prim::TupleIndex) {
    c10::IValue t = st.at(0);
    int64_t i = st.at(1).toInt();
    const auto& el = t.toTupleRef().elements();
    st.clear();
    st.push_back(el.at(i < 0 ? i + static_cast<int64_t>(el.size()) : i));
    return true;
  }
  return false;
}
}  // namespace

std::vector<VP> Walker::call(const tj::Module& module, const std::string& path, tj::Graph& graph,
                             const std::vector<VP>& args, bool is_function) {
  if (++depth_ > 200) throw Error(MX_ERR_UNSUPPORTED, "call depth above 200 (recursion?) in module " + path);
  if (!is_function && !order_.count(path)) order_[path] = next_order_++;
  Frame f{module, path, {}};
  Frame* saved_frame = cx_.frame;
  const tj::Node* saved_node = cx_.node;
  auto saved_out = cx_.ex_out;
  cx_.frame = &f;
  auto ins = graph.inputs();
  if (ins.size() != args.size())
    throw Error(MX_ERR_INTERNAL, "internal: call of " + path + " with " + std::to_string(args.size()) +
                                     " arguments, graph takes " + std::to_string(ins.size()));
  for (size_t k = 0; k < ins.size(); ++k) cx_.bind(ins[k], args[k]);
  walk_block(graph.block());
  std::vector<VP> res;
  for (auto* o : graph.outputs()) res.push_back(cx_.get(o));
  cx_.frame = saved_frame;
  cx_.node = saved_node;
  cx_.ex_out = std::move(saved_out);
  --depth_;
  return res;
}

void Walker::walk_block(tj::Block* block) {
  for (auto* n : block->nodes()) walk_node(n);
}

void Walker::walk_node(tj::Node* n) {
  cx_.node = n;
  auto kind = n->kind();
  if (kind == c10::prim::Constant) {
    auto v = std::make_shared<Val>();
    v->is_static = true;
    if (!n->output()->type()->cast<c10::FunctionType>()) {
      auto iv = tj::toIValue(n->output());
      if (iv) v->iv = *iv;
    }
    cx_.bind(n->output(), v);
    return;
  }
  if (kind == c10::prim::GetAttr) return get_attr(n);
  if (kind == c10::prim::CallMethod) {
    VP self = cx_.get(n->input(0));
    if (!self->is_module) cx_.unsupported("CallMethod on a non-module object");
    tj::Module sub(self->iv.toObject());
    auto method = sub.get_method(n->s(c10::attr::name));
    std::vector<VP> args;
    for (auto* i : n->inputs()) args.push_back(cx_.get(i));
    auto res = call(sub, self->path, *method.graph(), args, false);
    cx_.node = n;
    for (size_t k = 0; k < res.size(); ++k) cx_.bind(n->output(k), res[k]);
    return;
  }
  if (kind == c10::prim::CallFunction) {
    auto ft = n->input(0)->type()->cast<c10::FunctionType>();
    if (!ft) cx_.unsupported("CallFunction without a function constant");
    auto& fn = tj::toGraphFunction(*ft->function());
    std::vector<VP> args;
    for (size_t k = 1; k < n->inputs().size(); ++k) args.push_back(cx_.get(n->input(k)));
    auto res = call(cx_.frame->module, cx_.frame->path, *fn.graph(), args, true);
    cx_.node = n;
    for (size_t k = 0; k < res.size(); ++k) cx_.bind(n->output(k), res[k]);
    return;
  }
  if (kind == c10::prim::If) return walk_if(n);
  if (kind == c10::prim::Loop) return walk_loop(n);
  if (kind == c10::prim::RaiseException || kind == c10::prim::Uninitialized ||
      std::string(kind.toQualString()) == "aten::warn" || kind == c10::prim::Print) {
    for (auto* o : n->outputs()) {
      auto v = std::make_shared<Val>();
      v->is_static = true;
      cx_.bind(o, v);
    }
    return;
  }
  generic(n);
  if (progress_) progress_->op_done();
}

void Walker::get_attr(tj::Node* n) {
  VP obj = cx_.get(n->input(0));
  const std::string name = n->s(c10::attr::name);
  if (!obj->iv.isObject()) cx_.unsupported("GetAttr on a non-object");
  auto o = obj->iv.toObject();
  auto slot = o->type()->findAttributeSlot(name);
  if (!slot) cx_.unsupported("unknown attribute '" + name + "'");
  c10::IValue iv = o->getSlot(*slot);
  auto v = std::make_shared<Val>();
  v->iv = iv;
  if (is_module_object(iv)) {
    v->is_module = true;
    v->path = join_path(obj->path, name);
  } else if (iv.isTensor()) {
    v->name = cx_.initializer(iv.toTensor(), join_path(obj->path, name));
    v->onnx_type = onnx_type_of(iv.toTensor().scalar_type());
  } else {
    v->is_static = true;  // ints, bools, lists, None, ...
  }
  cx_.bind(n->output(), v);
}

void Walker::walk_if(tj::Node* n) {
  VP c = cx_.get(n->input(0));
  if (!c->is_static || !c->iv.isBool())
    cx_.unsupported("data-dependent control flow (prim::If on a value computed from the inputs)");
  tj::Block* b = n->blocks()[c->iv.toBool() ? 0 : 1];
  walk_block(b);
  cx_.node = n;
  for (size_t k = 0; k < n->outputs().size(); ++k) cx_.bind(n->output(k), cx_.get(b->outputs()[k]));
}

void Walker::walk_loop(tj::Node* n) {
  VP trip = cx_.get(n->input(0));
  VP cond = cx_.get(n->input(1));
  if (!trip->is_static || !cond->is_static)
    cx_.unsupported("data-dependent control flow (prim::Loop with a dynamic trip count or condition)");
  int64_t max_trip = trip->iv.toInt();
  bool go = cond->iv.toBool();
  std::vector<VP> carried;
  for (size_t k = 2; k < n->inputs().size(); ++k) carried.push_back(cx_.get(n->input(k)));
  tj::Block* body = n->blocks()[0];
  for (int64_t it = 0; go && it < max_trip; ++it) {
    auto iv = std::make_shared<Val>();
    iv->is_static = true;
    iv->iv = c10::IValue(it);
    cx_.bind(body->inputs()[0], iv);
    for (size_t k = 0; k < carried.size(); ++k) cx_.bind(body->inputs()[k + 1], carried[k]);
    walk_block(body);
    cx_.node = n;
    VP c = cx_.get(body->outputs()[0]);
    if (!c->is_static) cx_.unsupported("data-dependent loop condition");
    go = c->iv.toBool();
    for (size_t k = 0; k < carried.size(); ++k) carried[k] = cx_.get(body->outputs()[k + 1]);
  }
  for (size_t k = 0; k < carried.size(); ++k) cx_.bind(n->output(k), carried[k]);
}

namespace {

// The shared lowering (aten_onnx/src/lower) of a node, else the one a
// lowering plugin of the export supplies (a custom op, "mylib::scaled_add"
// -> "mylib.scaled_add.default"): by its schema's name and overload,
// "aten::add.Tensor" -> "aten.add.Tensor"; an in-place ATen op without its
// own registration lowers as its functional form (the walk rebinds the
// written input afterwards). A node reading a complex value looks under
// "complex." + its target (complex_values.hpp).
mx::aten_onnx::LowerFn shared_lowering(const tj::Node* n, const std::string& prefix) {
  const auto* schema = n->maybeSchema();
  if (!schema) return nullptr;
  std::string name = schema->name();
  const auto colons = name.find("::");
  if (colons == std::string::npos) return nullptr;
  const std::string overload = schema->overload_name().empty() ? "default" : schema->overload_name();
  const std::string ns = name.substr(0, colons);
  std::string op = name.substr(colons + 2);
  const std::string target = prefix + ns + "." + op + "." + overload;
  // a lowering plugin is not asked for a complex lowering (docs/lowering-plugins.md)
  if (auto fn = prefix.empty() ? mx::aten_onnx::lowering_of(target, kFrontend)
                               : mx::aten_onnx::find_lowering(target, kFrontend))
    return fn;
  const bool dunder = op.size() > 4 && op.rfind("__", 0) == 0;
  if (ns == "aten" && op.size() > 1 && op.back() == '_' && !dunder) {
    op.pop_back();
    return mx::aten_onnx::find_lowering(prefix + "aten." + op + "." + overload, kFrontend);
  }
  return nullptr;
}

// Whether no input of the node is a tensor or a list of them: such a node
// making a complex tensor (torch.zeros(.., dtype=torch.cfloat)) takes its
// "complex." lowering when it has one, which writes the pair layout.
bool reads_no_tensor(const tj::Node* n) {
  for (const auto* i : n->inputs()) {
    const auto& t = i->type();
    if (t->kind() == c10::TypeKind::TensorType) return false;
    if (t->kind() == c10::TypeKind::ListType &&
        t->containedTypes().at(0)->kind() == c10::TypeKind::TensorType)
      return false;
  }
  return true;
}

// For an op of another library's namespace (not aten::/prim::), what the
// user can do; "" for PyTorch's own ops.
std::string custom_op_remedy(const tj::Node* n) {
  const std::string ns = n->kind().ns().toUnqualString();
  if (ns == "aten" || ns == "prim" || ns == "onnx") return "";
  std::string target = n->kind().toQualString();
  target.replace(target.find("::"), 2, ".");
  const auto* schema = n->maybeSchema();
  target += "." + (schema && !schema->overload_name().empty() ? schema->overload_name() : "default");
  return ": " + std::string(n->kind().toQualString()) +
         " is a custom op of another library: put a lowering plugin for " + target +
         " on MODELEXPORT_PLUGIN_PATH (docs/lowering-plugins.md; lowering plugins found: " +
         mx::aten_onnx::active_lowering_plugins() + ")";
}

// Whether any schema argument of the node is a tensor (Tensor, Tensor?,
// Tensor[]): the scalar overloads (aten::add.int) have none.
bool has_tensor_argument(const tj::Node* n) {
  const auto* schema = n->maybeSchema();
  if (!schema) return true;
  for (const auto& a : schema->arguments())
    if (a.type()->str().find("Tensor") != std::string::npos) return true;
  return false;
}

// The model inputs a value was computed from (list and tuple elements too).
uint64_t inputs_of(const VP& v, int depth = 0) {
  uint64_t mask = v->from_inputs;
  if (depth < 8)
    for (const auto& e : v->elems) mask |= inputs_of(e, depth + 1);
  return mask;
}

// " reading the model input(s) 'a', 'b'", or "" when no input is known.
std::string inputs_read(const Ctx& cx, uint64_t mask) {
  std::string names;
  for (size_t k = 0; k < cx.input_names.size() && k < 64; ++k)
    if (mask & (uint64_t{1} << k)) names += (names.empty() ? "'" : ", '") + cx.input_names[k] + "'";
  return names.empty() ? "" : " (it reads the model input(s) " + names + ")";
}

}  // namespace

void Walker::generic(tj::Node* n) {
  std::vector<VP> ins;
  bool all_static = true;
  uint64_t from_inputs = 0;  // the model inputs this op reads (for errors and its results)
  for (auto* i : n->inputs()) {
    ins.push_back(cx_.get(i));
    if (!ins.back()->is_static || ins.back()->is_module) all_static = false;
    from_inputs |= inputs_of(ins.back());
  }
  const std::string kind = n->kind().toQualString();
  // This frontend's own lowering (prim:: ops, lists, scalars, the ATen ops
  // not yet shared), else the shared one of the op (aten_onnx/src/lower).
  LowerFn own = nullptr;
  if (!has_tensor_argument(n))
    if (auto s = scalar_registry().find(kind); s != scalar_registry().end()) own = s->second;
  if (!own)
    if (auto it = registry().find(kind); it != registry().end()) own = it->second;
  const bool complex = reads_complex(ins);
  if (complex && own && !own_lowering_reads_pairs(kind)) own = nullptr;
  mx::aten_onnx::LowerFn shared = own ? nullptr : shared_lowering(n, complex ? "complex." : "");
  if (!all_static && !own && !shared) {
    if (complex) refuse_complex(cx_);
    throw Error(MX_ERR_UNSUPPORTED, "unsupported op " + kind + " " + cx_.location() + custom_op_remedy(n));
  }
  // Execute: static nodes on their real values (folding), the others on
  // shapes (shape_exec.hpp: meta tensors, real only for shape arithmetic).
  tj::Stack stack;
  for (auto& v : ins) stack.push_back(v->iv);
  auto run = [&](tj::Stack& st) {
    if (exec_structural(n, st)) return;
    if (!n->maybeOperator()) cx_.unsupported("no operator registered");
    tj::Operation op = n->getOperation();
    op(st);
  };
  auto data_dependent = [&]() {
    cx_.unsupported(
        "its result depends on the values (not only the shapes) of a tensor computed from the "
        "model's inputs" +
        inputs_read(cx_, from_inputs) +
        ", and the export computes shapes only (plugins/torchscript/README.md, \"Shapes, not values\")");
  };
  // The shifted run first (dynamic_dims.hpp): the main run may write its
  // inputs in place.
  cx_.out_shift = all_static ? Shift::none : shift_of_inputs(ins);
  cx_.shifted_out.clear();
  if (cx_.out_shift == Shift::known) {
    if (auto shifted = run_shifted(n, ins, run)) cx_.shifted_out.assign(shifted->begin(), shifted->end());
    else cx_.out_shift = Shift::unknown;
  }
  try {
    if (all_static) run(stack);
    else exec_shapes(n, stack, ExecHooks{run, data_dependent}, &stand_in_ops_);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    std::string msg = e.what();
    auto nl = msg.find("\nException raised from");
    if (nl != std::string::npos) msg = msg.substr(0, nl);
    throw Error(MX_ERR_INVALID_ARGUMENT, "running " + kind + " on the example inputs failed " +
                                             cx_.location() + inputs_read(cx_, from_inputs) + ": " + msg +
                                             " (check the input specs: names, dtypes and ranks)");
  }
  if (stack.size() != n->outputs().size())
    throw Error(MX_ERR_INTERNAL,
                "internal: " + kind + " produced " + std::to_string(stack.size()) + " values");
  cx_.ex_out.assign(stack.begin(), stack.end());
  if (all_static && !never_fold(n)) {
    for (size_t k = 0; k < stack.size(); ++k) {
      auto v = std::make_shared<Val>();
      v->is_static = true;
      v->iv = stack[k];
      cx_.bind(n->output(k), v);
    }
    return;
  }
  if (!own && !complex && stack.size() == 1 && stack[0].isTensor() && stack[0].toTensor().is_complex() &&
      reads_no_tensor(n))  // a complex tensor made from sizes and numbers
    if (auto fn = shared_lowering(n, "complex.")) shared = fn;
  // clear stale bindings of outputs (loops re-walk blocks)
  for (auto* o : n->outputs()) cx_.frame->env.erase(o);
  if (own) {
    own(cx_, n);
  } else {
    cx_.begin_shared(n);
    try {
      shared(cx_);
    } catch (const Error& e) {
      // A shared helper's error (a constant of a dtype it cannot write, ...)
      // knows no node: name the op and where the program holds it.
      const std::string at = cx_.location();
      if (std::string(e.what()).find(at) != std::string::npos) throw;
      throw Error(e.code, "unsupported op " + kind + ": " + e.what() + " " + at);
    }
  }
  const auto why = cx_.take_uncomputed_reasons();
  for (size_t k = 0; k < n->outputs().size(); ++k) {
    auto* o = n->output(k);
    if (!cx_.frame->env.count(o)) {
      // Shared lowerings leave outputs no ONNX graph of an eval model reads
      // unbound (max_pool2d_with_indices' indices): a use of one is an error.
      if (own)
        throw Error(MX_ERR_INTERNAL, "internal: lowering of " + kind + " did not bind %" + o->debugName());
      auto unbound = std::make_shared<Val>();
      unbound->iv = cx_.ex_out[k];
      unbound->not_computed = "output " + std::to_string(k) + " of " + kind + " " + cx_.location();
      if (auto it = why.find(k); it != why.end()) unbound->not_computed += " (" + it->second + ")";
      cx_.bind(o, unbound);
    }
    VP out = cx_.get(o);
    if (!out->is_static) out->from_inputs |= from_inputs;  // static values may be shared constants
    if (cx_.out_shift != Shift::none)
      cx_.bind(o,
               with_shift(out, cx_.out_shift, cx_.out_shift == Shift::known ? &cx_.shifted_out[k] : nullptr));
  }
  if (symbols_) symbols_->assign(cx_, n);
  if (!is_view_op(kind)) {  // results of other ops (clone, to, ...) are not views
    for (auto* o : n->outputs()) {
      VP v = cx_.get(o);
      if (v->view_of) {
        auto c = std::make_shared<Val>(*v);
        c->view_of = nullptr;
        cx_.bind(o, c);
      }
    }
  }
  if (is_view_op(kind) && n->outputs().size() == 1 && cx_.ex_out[0].isTensor()) {
    auto v = std::make_shared<Val>(*cx_.get(n->output(0)));
    v->view_of = n;
    cx_.bind(n->output(0), v);
  }
  // In-place ops: the mutated input now denotes the new ONNX tensor; when it
  // is a view, the tensors it was taken from are rebuilt too.
  const auto* schema = n->maybeSchema();
  if (schema && !schema->arguments().empty() && n->outputs().size() == 1) {
    const auto* ai = schema->arguments()[0].alias_info();
    if (ai && ai->isWrite()) {
      VP old = cx_.get(n->input(0));
      auto nv = std::make_shared<Val>(*cx_.get(n->output(0)));
      nv->view_of = old->view_of;
      cx_.bind(n->output(0), nv);
      cx_.bind(n->input(0), nv);
      if (old->view_of && !old->is_static) write_back_view(cx_, old, nv);
    }
  }
}

}  // namespace mx::torchscript
