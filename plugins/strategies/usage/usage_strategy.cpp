#include "usage_strategy.hpp"

#include <algorithm>
#include <unordered_map>

#include "module_choice.hpp"
#include "static_chains.hpp"

namespace mx_usage {
namespace {

// Parameters reaching one node's inputs (through chains), without repeats.
std::vector<std::string> parameters_into(const NodeView& node,
                                         const ParameterFlow& flow) {
  std::vector<std::string> params;
  for (const auto& in : node.inputs) {
    auto it = flow.origins.find(in);
    if (it == flow.origins.end()) continue;
    for (const auto& p : it->second)
      if (std::find(params.begin(), params.end(), p) == params.end())
        params.push_back(p);
  }
  return params;
}

// Parameters reaching one chain node's outputs.
std::vector<std::string> parameters_out_of(const NodeView& node,
                                           const ParameterFlow& flow) {
  std::vector<std::string> params;
  for (const auto& out : node.outputs) {
    auto it = flow.origins.find(out);
    if (it != flow.origins.end()) params = it->second;
  }
  return params;
}

bool is_compute(size_t i, const ParameterFlow& flow) {
  return !flow.is_chain[i] && !flow.is_constant[i];
}

// How many compute nodes consume each parameter (through chains).
std::unordered_map<std::string, int> count_consumers(
    const GraphView& graph, const ParameterFlow& flow) {
  std::unordered_map<std::string, int> count;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (is_compute(i, flow))
      for (const auto& p : parameters_into(graph.nodes[i], flow)) ++count[p];
  return count;
}

void drop_shared(std::vector<std::string>& params,
                 const std::unordered_map<std::string, int>& consumers) {
  params.erase(std::remove_if(params.begin(), params.end(),
                              [&](const std::string& p) {
                                auto it = consumers.find(p);
                                return it != consumers.end() && it->second > 1;
                              }),
               params.end());
}

}  // namespace

std::vector<UsageAssignment> assign_by_usage(const GraphView& graph,
                                             const UsageOptions& options) {
  ParameterFlow flow = trace_parameter_flow(graph);
  auto consumers = count_consumers(graph, flow);
  std::vector<UsageAssignment> out;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (flow.is_constant[i]) continue;  // constants follow their consumers
    const NodeView& node = graph.nodes[i];
    auto params = flow.is_chain[i] ? parameters_out_of(node, flow)
                                   : parameters_into(node, flow);
    if (!options.use_shared_parameters) drop_shared(params, consumers);
    if (auto module = choose_module(params)) out.push_back({i, *module});
  }
  return out;
}

}  // namespace mx_usage
