// Higher-order ops: nested graphs of the program.
// - wrap_with_set_grad_enabled and wrap_with_autocast (torch.no_grad /
//   autocast regions in the TRAINING dialect; LLaMA's rotary embedding) run
//   once in place: the body is inlined, its nodes lowered in their own
//   modules. Grad mode changes no value in an inference graph; an
//   autocast region's ops read their inputs in the dtype autocast runs
//   them in (autocast.hpp), as eager does.
// - control flow becomes ONNX control flow with lowered subgraphs:
//   cond -> If, while_loop -> Loop, scan and map -> Scan.
// They stay in this frontend (MXTE_LOWER, not aten_onnx/src/lower): their
// bodies are graphs of the program's JSON, lowered by this frontend's walk.
#include <functional>
#include <limits>

#include "autocast.hpp"
#include "lower_ctx.hpp"

namespace mx::torch_export {
namespace {

// The program's nested graph `g` lowered in the current scope with its
// inputs bound to `bindings`; returns the values of its outputs. Its own
// values are dropped afterwards (they are local to the nested graph). An
// input the graph writes in place (a buffer written in a no_grad region)
// is handed back in `written` (input -> its new value), where the caller
// writes it to what it bound; without `written` such a write is refused.
std::vector<Value> lower_inline(LowerCtx& cx, const json& g, const std::vector<Value>& bindings,
                                std::map<size_t, Value>* written = nullptr) {
  const auto meta = read_tensor_values(g);
  std::unordered_map<std::string, Value> scope = cx.values;
  const json& params = g.at("inputs");
  if (params.size() != bindings.size())
    cx.unsupported("a nested graph of " + std::to_string(params.size()) + " inputs given " +
                   std::to_string(bindings.size()));
  for (size_t k = 0; k < params.size(); ++k) {
    if (!params[k].contains("as_tensor")) cx.unsupported("a nested graph input that is not a tensor");
    scope[params[k].at("as_tensor").at("name").get<std::string>()] = bindings[k];
  }
  const json* node = cx.node;
  const std::string target = cx.target(), module = cx.module;
  const auto* outer_meta = cx.tensors;
  const json* outer_graph = cx.nested_graph;
  std::swap(cx.values, scope);
  cx.tensors = &meta;
  cx.nested_graph = &g;
  auto restore = [&] {
    std::swap(cx.values, scope);
    cx.tensors = outer_meta;
    cx.nested_graph = outer_graph;
    cx.node = node;
    cx.set_target(target);
    cx.module = module;
  };
  std::vector<Value> outs;
  try {
    for (const auto& n : g.at("nodes")) {
      if (cx.skip_through) {  // a node of a vmap region its first node unrolled (vmap.cpp)
        if (&n == cx.skip_through) cx.skip_through = nullptr;
        continue;
      }
      cx.lower_nested(n);
    }
    for (const auto& o : g.at("outputs")) {
      if (!o.contains("as_tensor")) cx.unsupported("a nested graph output that is not a tensor");
      auto it = cx.values.find(o.at("as_tensor").at("name").get<std::string>());
      if (it == cx.values.end()) cx.unsupported("a nested graph output nothing computes");
      outs.push_back(it->second);
    }
    for (size_t k = 0; k < params.size(); ++k) {
      const Value& now = cx.values.at(params[k].at("as_tensor").at("name").get<std::string>());
      if (now.onnx == bindings[k].onnx) continue;
      if (!written)
        cx.unsupported("an in-place write to input " + std::to_string(k) + " ('" +
                       params[k].at("as_tensor").at("name").get<std::string>() +
                       "') of a control-flow body, which torch.cond / while_loop / scan / map do not allow");
      (*written)[k] = now;
    }
  } catch (...) {
    restore();
    throw;
  }
  restore();
  return outs;
}

// The body of an ONNX `holder` (If branch, Loop/Scan body): `build` runs
// in a fresh graph whose inputs are `inputs` (name, value) and returns the
// values to output; each gets an Identity so the body names its own
// outputs (OnnxEmitter::body_graph).
onnx::GraphProto build_subgraph(LowerCtx& cx, const std::string& holder, const std::string& name,
                                const std::vector<std::pair<std::string, Value>>& inputs,
                                const std::function<std::vector<Value>()>& build) {
  using BodyValue = mx::aten_onnx::OnnxEmitter::BodyValue;
  const std::string module = cx.module;
  std::vector<BodyValue> typed;
  for (const auto& [input, v] : inputs) {
    BodyValue b{input, v.dtype};
    for (const auto& d : v.shape) b.dims.push_back(d.is_static ? d.value : -1);
    typed.push_back(b);
  }
  onnx::GraphProto g = cx.body_graph(holder, name, typed, [&] {
    std::vector<BodyValue> outs;
    for (const Value& v : build()) {
      cx.module = module;
      outs.push_back({cx.emit1("Identity", {v.onnx}), v.dtype, {}, false});
    }
    return outs;
  });
  cx.module = module;
  return g;
}

// wrap_with_set_grad_enabled / wrap_with_autocast: (mode args.., body
// graph, the body's tensor inputs..) - the body inlined, its outputs bound
// to the node's.
void lower_wrapped_body(LowerCtx& cx) {
  const json& inputs = cx.node->at("inputs");
  size_t g = 0;
  while (g < inputs.size() && !inputs[g].at("arg").contains("as_graph")) ++g;
  if (g == inputs.size()) cx.unsupported("a higher-order op without a body graph");
  const json& body = inputs[g].at("arg").at("as_graph").at("graph");
  std::vector<Value> bindings;
  for (size_t at = g + 1; at < g + 1 + body.at("inputs").size(); ++at) {
    if (at >= inputs.size() || !inputs[at].at("arg").contains("as_tensor"))
      cx.unsupported("a body input that is not a tensor");
    auto it = cx.values.find(inputs[at].at("arg").at("as_tensor").at("name").get<std::string>());
    if (it == cx.values.end()) cx.unsupported("a body input reads a value nothing defines");
    bindings.push_back(it->second);
  }
  const int32_t outer = cx.autocast_dtype;
  if (cx.target() == "higher_order.wrap_with_autocast")
    cx.autocast_dtype = autocast_region_dtype(*cx.node, outer);
  std::vector<Value> results;
  std::map<size_t, Value> written;
  try {
    results = lower_inline(cx, body, bindings, &written);
  } catch (...) {
    cx.autocast_dtype = outer;
    throw;
  }
  cx.autocast_dtype = outer;
  for (const auto& [k, v] : written)  // the body wrote its input k in place: the outer tensor it was
    cx.write_in_place(inputs[g + 1 + k].at("arg").at("as_tensor").at("name").get<std::string>(), v.onnx);
  const json& outs = cx.node->at("outputs");
  for (size_t k = 0; k < outs.size() && k < results.size(); ++k)
    if (outs[k].contains("as_tensor"))
      cx.values[outs[k].at("as_tensor").at("name").get<std::string>()] = results[k];
}
MXTE_LOWER(lower_wrapped_body, "higher_order.wrap_with_set_grad_enabled", "higher_order.wrap_with_autocast");

// The tensors of a list argument (positional inputs of a higher-order op).
std::vector<Value> tensor_list_at(LowerCtx& cx, size_t k) {
  const json& in = cx.node->at("inputs");
  if (k >= in.size() || !in[k].at("arg").contains("as_tensors"))
    cx.unsupported("a higher-order op without its tensor list");
  std::vector<Value> out;
  for (const auto& t : in[k].at("arg").at("as_tensors")) {
    auto it = cx.values.find(t.at("name").get<std::string>());
    if (it == cx.values.end()) cx.unsupported("a higher-order operand nothing defines");
    out.push_back(it->second);
  }
  return out;
}

const json& graph_at(LowerCtx& cx, size_t k) {
  const json& in = cx.node->at("inputs");
  if (k >= in.size() || !in[k].at("arg").contains("as_graph"))
    cx.unsupported("a higher-order op without its graph");
  return in[k].at("arg").at("as_graph").at("graph");
}

std::vector<Value> concat(std::vector<Value> a, const std::vector<Value>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A predicate as the 0-d bool If and Loop read: a 0-d value (a tensor of
// no dims, a SymBool) as it is, cast to bool when it is not one; a
// one-element tensor of some rank reshaped to [].
std::string scalar_bool(LowerCtx& cx, const Value& v) {
  const std::string b = cx.cast(v.onnx, v.dtype, onnx::TensorProto::BOOL);
  return v.shape.empty() ? b : cx.emit1("Reshape", {b, cx.ci64({})});
}

// The predicate of a cond: a tensor, a SymBool (`x.shape[0] > 2`, which
// torch.export keeps when the dim is dynamic) or a constant bool.
std::string cond_predicate(LowerCtx& cx) {
  const json& arg = cx.node->at("inputs").at(0).at("arg");
  if (arg.contains("as_bool"))
    return cx.cscalar(arg.at("as_bool").get<bool>() ? 1 : 0, onnx::TensorProto::BOOL);
  std::string name;
  if (arg.contains("as_tensor")) name = arg.at("as_tensor").at("name").get<std::string>();
  if (arg.contains("as_sym_bool") && arg.at("as_sym_bool").contains("as_name"))
    name = arg.at("as_sym_bool").at("as_name").get<std::string>();
  if (name.empty()) cx.unsupported("a cond whose predicate is neither a tensor nor a SymBool");
  auto it = cx.values.find(name);
  if (it == cx.values.end()) cx.unsupported("a cond predicate nothing defines");
  return scalar_bool(cx, it->second);
}

// higher_order.cond(pred, true_graph, false_graph, operands) -> If.
void lower_cond(LowerCtx& cx) {
  const std::string pred = cond_predicate(cx);
  const std::vector<Value> operands = tensor_list_at(cx, 3);
  const std::string base = cx.node->value("name", std::string("cond"));
  const json& then_graph = graph_at(cx, 1);
  const json& else_graph = graph_at(cx, 2);
  onnx::GraphProto then_g =
      build_subgraph(cx, "If", base + "_then", {}, [&] { return lower_inline(cx, then_graph, operands); });
  onnx::GraphProto else_g =
      build_subgraph(cx, "If", base + "_else", {}, [&] { return lower_inline(cx, else_graph, operands); });
  const size_t n = cx.n_outputs();
  auto outs = cx.emit("If", {pred},
                      {attr("then_branch", std::move(then_g)), attr("else_branch", std::move(else_g))}, n);
  for (size_t k = 0; k < n; ++k) cx.out(k, outs[k]);
}
MXTE_LOWER(lower_cond, "higher_order.cond");

// Values of the same dtype and shape under new names (a body's inputs).
std::vector<std::pair<std::string, Value>> renamed(const std::vector<Value>& vs, const std::string& prefix) {
  std::vector<std::pair<std::string, Value>> out;
  for (size_t k = 0; k < vs.size(); ++k) {
    Value v = vs[k];
    v.onnx = prefix + std::to_string(k);
    out.emplace_back(v.onnx, v);
  }
  return out;
}

std::vector<Value> values_of(const std::vector<std::pair<std::string, Value>>& named) {
  std::vector<Value> out;
  for (const auto& [n, v] : named) out.push_back(v);
  return out;
}

// higher_order.while_loop(cond_graph, body_graph, carried, additional) ->
// Loop: the condition evaluated once before (outside) and after every
// body run (inside), the carried values threaded through.
void lower_while_loop(LowerCtx& cx) {
  const json& cond_graph = graph_at(cx, 0);
  const json& body_graph = graph_at(cx, 1);
  const std::vector<Value> carried = tensor_list_at(cx, 2), extra = tensor_list_at(cx, 3);
  const std::string base = cx.node->value("name", std::string("while_loop"));
  const std::string first = scalar_bool(cx, lower_inline(cx, cond_graph, concat(carried, extra)).at(0));
  Value iter, cond_in;
  iter.dtype = onnx::TensorProto::INT64;
  cond_in.dtype = onnx::TensorProto::BOOL;
  iter.onnx = base + "_iter";
  cond_in.onnx = base + "_cond_in";
  auto state = renamed(carried, base + "_carried_");
  std::vector<std::pair<std::string, Value>> inputs = {{iter.onnx, iter}, {cond_in.onnx, cond_in}};
  inputs.insert(inputs.end(), state.begin(), state.end());
  onnx::GraphProto body = build_subgraph(cx, "Loop", base + "_body", inputs, [&] {
    const std::vector<Value> next = lower_inline(cx, body_graph, concat(values_of(state), extra));
    Value c = lower_inline(cx, cond_graph, concat(next, extra)).at(0);
    c.onnx = scalar_bool(cx, c);
    c.dtype = onnx::TensorProto::BOOL;
    return concat({c}, next);
  });
  std::vector<std::string> ins = {"", first};
  for (const Value& v : carried) ins.push_back(v.onnx);
  const size_t n = cx.n_outputs();
  if (n != carried.size()) cx.unsupported("a while_loop whose outputs are not its carried values");
  auto outs = cx.emit("Loop", ins, {attr("body", std::move(body))}, n);
  for (size_t k = 0; k < n; ++k) cx.out(k, outs[k]);
}
MXTE_LOWER(lower_while_loop, "higher_order.while_loop");

// A Scan over dim 0 of xs carrying `init`: `graph` takes (carry...,
// x_t..., extra...) and gives (next carry..., y_t...); the node gives
// (final carry..., ys...). `what` names the op in refusals.
void lower_as_scan(LowerCtx& cx, const json& graph, const std::vector<Value>& init,
                   const std::vector<Value>& xs, const std::vector<Value>& extra, const std::string& what) {
  const std::string base = cx.node->value("name", what);
  auto state = renamed(init, base + "_carry_");
  std::vector<Value> slices;
  for (Value x : xs) {  // one step's slice: dim 0 gone
    if (x.shape.empty()) cx.unsupported("a " + what + " over a 0-d tensor");
    x.shape.erase(x.shape.begin());
    slices.push_back(x);
  }
  auto step = renamed(slices, base + "_x_");
  std::vector<std::pair<std::string, Value>> inputs = state;
  inputs.insert(inputs.end(), step.begin(), step.end());
  onnx::GraphProto body = build_subgraph(cx, "Scan", base + "_body", inputs, [&] {
    return lower_inline(cx, graph, concat(concat(values_of(state), values_of(step)), extra));
  });
  std::vector<std::string> ins;
  for (const Value& v : init) ins.push_back(v.onnx);
  for (const Value& v : xs) ins.push_back(v.onnx);
  const size_t n = cx.n_outputs();
  auto outs =
      cx.emit("Scan", ins,
              {attr("body", std::move(body)), attr("num_scan_inputs", static_cast<int64_t>(xs.size()))}, n);
  for (size_t k = 0; k < n; ++k) cx.out(k, outs[k]);
}

// higher_order.scan(combine_graph, init, xs, additional) -> Scan over dim
// 0 of xs.
void lower_scan(LowerCtx& cx) {
  const json& combine = graph_at(cx, 0);
  const std::vector<Value> init = tensor_list_at(cx, 1), xs = tensor_list_at(cx, 2),
                           extra = tensor_list_at(cx, 3);
  lower_as_scan(cx, combine, init, xs, extra, "scan");
}
MXTE_LOWER(lower_scan, "higher_order.scan");

// higher_order.map_impl(body_graph, xs, pos_args) (torch._higher_order_ops
// map) -> Scan without carried state: the body runs on each dim-0 slice of
// xs with the whole pos_args, and its outputs are stacked along dim 0.
void lower_map(LowerCtx& cx) {
  const json& body_graph = graph_at(cx, 0);
  const std::vector<Value> xs = tensor_list_at(cx, 1), extra = tensor_list_at(cx, 2);
  lower_as_scan(cx, body_graph, {}, xs, extra, "map");
}
MXTE_LOWER(lower_map, "higher_order.map_impl");

// higher_order.associative_scan(combine_graph, xs, additional) (the
// default combine_mode="pointwise") -> the inclusive scan along dim 0
// (torch moves the scanned dim there and flips a reverse scan outside the
// op): y_0 = x_0, y_i = combine(y_{i-1}, x_i) - a Scan over xs[1:] carrying
// y, its outputs after x_0. Sequential: associativity only lets torch
// reorder the combines.
void lower_associative_scan(LowerCtx& cx) {
  const json& combine = graph_at(cx, 0);
  const std::vector<Value> xs = tensor_list_at(cx, 1), extra = tensor_list_at(cx, 2);
  const std::string base = cx.node->value("name", std::string("associative_scan"));
  std::vector<Value> slices;
  std::vector<std::string> firsts, ins;
  for (const Value& x : xs) {
    if (x.shape.empty()) cx.unsupported("an associative_scan over a 0-d tensor");
    Value slice = x;
    slice.shape.erase(slice.shape.begin());
    slices.push_back(slice);
    firsts.push_back(cx.emit1("Slice", {x.onnx, cx.ci64({0}), cx.ci64({1}), cx.ci64({0})}));
    ins.push_back(cx.squeeze(firsts.back(), {0}));
  }
  for (const Value& x : xs)
    ins.push_back(cx.emit1(
        "Slice", {x.onnx, cx.ci64({1}), cx.ci64({std::numeric_limits<int64_t>::max()}), cx.ci64({0})}));
  const auto state = renamed(slices, base + "_carry_"), step = renamed(slices, base + "_x_");
  std::vector<std::pair<std::string, Value>> inputs = state;
  inputs.insert(inputs.end(), step.begin(), step.end());
  onnx::GraphProto body = build_subgraph(cx, "Scan", base + "_body", inputs, [&] {
    const std::vector<Value> y =
        lower_inline(cx, combine, concat(concat(values_of(state), values_of(step)), extra));
    return concat(y, y);  // the next carry, and the step's output
  });
  const size_t n = xs.size();
  if (cx.n_outputs() != n) cx.unsupported("an associative_scan whose outputs are not one per input");
  auto outs = cx.emit(
      "Scan", ins, {attr("body", std::move(body)), attr("num_scan_inputs", static_cast<int64_t>(n))}, 2 * n);
  for (size_t k = 0; k < n; ++k)
    cx.out(k, cx.emit1("Concat", {firsts[k], outs[n + k]}, {attr("axis", int64_t{0})}));
}
MXTE_LOWER(lower_associative_scan, "higher_order.associative_scan");

}  // namespace
}  // namespace mx::torch_export
