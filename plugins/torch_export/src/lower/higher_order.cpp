// Higher-order ops whose body is a nested graph run once in place:
// wrap_with_set_grad_enabled and wrap_with_autocast (torch.no_grad /
// autocast regions in the TRAINING dialect; LLaMA's rotary embedding). In
// an inference graph neither grad mode nor CPU autocast of float32 changes
// the values, so the body is inlined: its inputs bound to the node's tensor
// arguments, its nodes lowered in their own modules, its outputs bound to
// the node's outputs.
#include "lower_ctx.hpp"

namespace mxte {
namespace {

void lower_wrapped_body(LowerCtx& cx) {
  const json& inputs = cx.node->at("inputs");
  size_t g = 0;
  while (g < inputs.size() && !inputs[g].at("arg").contains("as_graph")) ++g;
  if (g == inputs.size()) cx.unsupported("a higher-order op without a body graph");
  const json& body = inputs[g].at("arg").at("as_graph").at("graph");
  const auto body_meta = read_tensor_values(body);
  std::unordered_map<std::string, Value> scope;
  const json& params = body.at("inputs");
  for (size_t k = 0; k < params.size(); ++k) {
    const size_t at = g + 1 + k;
    if (at >= inputs.size() || !inputs[at].at("arg").contains("as_tensor") || !params[k].contains("as_tensor"))
      cx.unsupported("a body input that is not a tensor");
    auto it = cx.values.find(inputs[at].at("arg").at("as_tensor").at("name").get<std::string>());
    if (it == cx.values.end()) cx.unsupported("a body input reads a value nothing defines");
    scope[params[k].at("as_tensor").at("name").get<std::string>()] = it->second;
  }
  // Lower the body in its own scope, then bind the node's outputs.
  const json* node = cx.node;
  const std::string target = cx.target, module = cx.module;
  std::swap(cx.values, scope);
  const auto* outer_meta = cx.tensors;
  cx.tensors = &body_meta;
  std::vector<Value> results;
  try {
    for (const auto& n : body.at("nodes")) cx.lower_nested(n);
    for (const auto& o : body.at("outputs")) {
      auto it = cx.values.find(o.at("as_tensor").at("name").get<std::string>());
      if (it == cx.values.end()) cx.unsupported("a body output nothing computes");
      results.push_back(it->second);
    }
  } catch (...) {
    std::swap(cx.values, scope);
    cx.tensors = outer_meta;
    throw;
  }
  std::swap(cx.values, scope);
  cx.tensors = outer_meta;
  cx.node = node;
  cx.target = target;
  cx.module = module;
  const json& outs = node->at("outputs");
  for (size_t k = 0; k < outs.size() && k < results.size(); ++k)
    if (outs[k].contains("as_tensor")) cx.values[outs[k].at("as_tensor").at("name").get<std::string>()] = results[k];
}
MXTE_LOWER(lower_wrapped_body, "higher_order.wrap_with_set_grad_enabled", "higher_order.wrap_with_autocast");

}  // namespace
}  // namespace mxte

namespace mxte {
namespace {

onnx::AttributeProto graph_attr(const std::string& name, onnx::GraphProto g) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::GRAPH);
  *a.mutable_g() = std::move(g);
  return a;
}

// One branch of a cond as an ONNX graph: its inputs bound to the node's
// operands (ONNX branches read outer values by name and take no inputs),
// its nodes lowered in place, an Identity per output so each branch names
// its own.
onnx::GraphProto lower_branch(LowerCtx& cx, const json& branch, const std::vector<Value>& operands, const std::string& name,
                              const std::vector<int32_t>& out_types) {
  const json& body = branch.at("graph");
  const auto body_meta = read_tensor_values(body);
  std::unordered_map<std::string, Value> scope = cx.values;
  const json& params = body.at("inputs");
  if (params.size() != operands.size()) cx.unsupported("a cond branch whose inputs are not the operands");
  for (size_t k = 0; k < params.size(); ++k) {
    if (!params[k].contains("as_tensor")) cx.unsupported("a cond branch input that is not a tensor");
    scope[params[k].at("as_tensor").at("name").get<std::string>()] = operands[k];
  }
  const json* node = cx.node;
  const std::string target = cx.target, module = cx.module;
  const auto* outer_meta = cx.tensors;
  const size_t first_record = cx.records.size();
  mx::aten_onnx::OnnxEmitter::Subgraph sub;
  sub.graph.set_name(name);
  std::swap(cx.values, scope);
  cx.tensors = &body_meta;
  cx.swap_subgraph(sub);
  auto restore = [&] {
    cx.swap_subgraph(sub);
    std::swap(cx.values, scope);
    cx.tensors = outer_meta;
    cx.node = node;
    cx.target = target;
    cx.module = module;
  };
  try {
    for (const auto& n : body.at("nodes")) cx.lower_nested(n);
    size_t k = 0;
    if (body.at("outputs").size() != out_types.size()) cx.unsupported("a cond branch with another output count");
    for (const auto& o : body.at("outputs")) {
      auto it = cx.values.find(o.at("as_tensor").at("name").get<std::string>());
      if (it == cx.values.end()) cx.unsupported("a cond branch output nothing computes");
      cx.module = module;
      const std::string out = cx.emit1("Identity", {it->second.onnx});
      auto* vi = cx.graph.add_output();
      vi->set_name(out);
      vi->mutable_type()->mutable_tensor_type()->set_elem_type(out_types[k++]);
    }
  } catch (...) {
    restore();
    throw;
  }
  restore();
  // The branch's nodes are attributed through the If node, whose record
  // names the module that ran the cond: the hierarchy document and the
  // tagging core list the graph's top-level nodes only.
  cx.records.resize(first_record);
  return std::move(sub.graph);
}

// higher_order.cond(pred, true_graph, false_graph, operands) -> If.
void lower_cond(LowerCtx& cx) {
  const json& in = cx.node->at("inputs");
  if (in.size() != 4 || !in[1].at("arg").contains("as_graph") || !in[2].at("arg").contains("as_graph") ||
      !in[3].at("arg").contains("as_tensors"))
    cx.unsupported("a cond without (pred, true graph, false graph, operands)");
  const json& pred_arg = in[0].at("arg");
  if (!pred_arg.contains("as_tensor")) cx.unsupported("a cond whose predicate is not a tensor");
  auto pit = cx.values.find(pred_arg.at("as_tensor").at("name").get<std::string>());
  if (pit == cx.values.end()) cx.unsupported("a cond predicate nothing defines");
  const Value pred = pit->second;
  std::vector<Value> operands;
  for (const auto& t : in[3].at("arg").at("as_tensors")) {
    auto it = cx.values.find(t.at("name").get<std::string>());
    if (it == cx.values.end()) cx.unsupported("a cond operand nothing defines");
    Value v = it->second;
    operands.push_back(std::move(v));
  }
  const std::string base = cx.node->value("name", std::string("cond"));
  std::vector<int32_t> types;
  for (size_t k = 0; k < cx.n_outputs(); ++k) types.push_back(cx.out_dtype(k));
  onnx::GraphProto then_g = lower_branch(cx, in[1].at("arg").at("as_graph"), operands, base + "_then", types);
  onnx::GraphProto else_g = lower_branch(cx, in[2].at("arg").at("as_graph"), operands, base + "_else", types);
  const std::string cond = cx.emit1("Reshape", {cx.cast(pred.onnx, pred.dtype, onnx::TensorProto::BOOL), cx.ci64({})});
  const size_t n = cx.n_outputs();
  auto outs = cx.emit("If", {cond}, {graph_attr("then_branch", std::move(then_g)), graph_attr("else_branch", std::move(else_g))}, n);
  for (size_t k = 0; k < n; ++k) cx.out(k, outs[k]);
}
MXTE_LOWER(lower_cond, "higher_order.cond");

}  // namespace
}  // namespace mxte
