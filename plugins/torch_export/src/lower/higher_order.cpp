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
