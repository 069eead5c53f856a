#include "static_chains.hpp"

#include <algorithm>
#include <deque>
#include <unordered_set>

#include "parameter_name.hpp"

namespace mx::usage {
namespace {

using ValueSet = std::unordered_set<std::string>;

// Values that are static before any chain node runs.
ValueSet initial_static_values(const GraphView& graph, ParameterFlow& flow) {
  ValueSet known(graph.initializers.begin(), graph.initializers.end());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const NodeView& node = graph.nodes[i];
    bool no_inputs =
        std::none_of(node.inputs.begin(), node.inputs.end(), [](const std::string& s) { return !s.empty(); });
    flow.is_constant[i] = no_inputs && (node.op_type == "Constant" || node.op_type == "ConstantOfShape");
    if (flow.is_constant[i])
      for (const auto& out : node.outputs) known.insert(out);
  }
  for (const auto& name : graph.initializers)
    if (module_of_parameter(name)) flow.origins[name] = {name};
  return known;
}

bool all_inputs_static(const NodeView& node, const ValueSet& known) {
  bool any = false;
  for (const auto& in : node.inputs) {
    if (in.empty()) continue;
    if (!known.count(in)) return false;
    any = true;
  }
  return any;
}

// Marks one chain node: its outputs become static and carry its inputs'
// parameter origins.
//
// Exception: an Identity whose output is named like a parameter IS that
// parameter. torch.onnx (>= 1.13) de-duplicates equal-valued initializers
// and keeps each dropped one as `Identity(kept) -> dropped.name`: with
// random or fresh weights every LayerNorm/bias of a model points at the
// first one (`embeddings.LayerNorm.bias`), which would make the kept name
// wrong for all its readers and, being shared, no evidence at all.
void absorb_chain_node(const NodeView& node, ValueSet& known, ParameterFlow& flow) {
  if (node.op_type == "Identity" && node.outputs.size() == 1 && module_of_parameter(node.outputs[0])) {
    known.insert(node.outputs[0]);
    flow.origins[node.outputs[0]] = {node.outputs[0]};
    return;
  }
  std::vector<std::string> merged;
  for (const auto& in : node.inputs) {
    auto it = flow.origins.find(in);
    if (it == flow.origins.end()) continue;
    for (const auto& p : it->second)
      if (std::find(merged.begin(), merged.end(), p) == merged.end()) merged.push_back(p);
  }
  for (const auto& out : node.outputs) {
    known.insert(out);
    if (!merged.empty()) flow.origins[out] = merged;
  }
}

}  // namespace

bool is_pass_through(const std::string& op_type) {
  static const ValueSet kOps = {"Transpose", "Cast",    "DequantizeLinear", "Identity",      "Reshape",
                                "Unsqueeze", "Squeeze", "Flatten",          "QuantizeLinear"};
  return kOps.count(op_type) > 0;
}

ParameterFlow trace_parameter_flow(const GraphView& graph) {
  ParameterFlow flow;
  flow.is_chain.assign(graph.nodes.size(), false);
  flow.is_constant.assign(graph.nodes.size(), false);
  ValueSet known = initial_static_values(graph, flow);

  // Repeat until no new chain node appears; each round is linear and every
  // round marks at least one node, so the loop ends. Chains are short, so in
  // practice one or two rounds suffice on sorted graphs.
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const NodeView& node = graph.nodes[i];
      if (flow.is_chain[i] || !is_pass_through(node.op_type)) continue;
      if (!all_inputs_static(node, known)) continue;
      flow.is_chain[i] = true;
      absorb_chain_node(node, known, flow);
      changed = true;
    }
  }
  return flow;
}

}  // namespace mx::usage
