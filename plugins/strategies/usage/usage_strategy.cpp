#include "usage_strategy.hpp"

#include <algorithm>
#include <unordered_map>

#include "anonymous_weights.hpp"
#include "module_choice.hpp"
#include "parameter_name.hpp"
#include "static_chains.hpp"

namespace mx::usage {
namespace {

// Parameters reaching one node's inputs (through chains), without repeats.
std::vector<std::string> parameters_into(const NodeView& node, const ParameterFlow& flow) {
  std::vector<std::string> params;
  for (const auto& in : node.inputs) {
    auto it = flow.origins.find(in);
    if (it == flow.origins.end()) continue;
    for (const auto& p : it->second)
      if (std::find(params.begin(), params.end(), p) == params.end()) params.push_back(p);
  }
  return params;
}

// Parameters reaching one chain node's outputs.
std::vector<std::string> parameters_out_of(const NodeView& node, const ParameterFlow& flow) {
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

// The parameters each node reads: a chain node passes on what reaches its
// outputs, a compute node what reaches its inputs; constants read none.
// Computed once: both counts below and the assignment use it.
std::vector<std::vector<std::string>> parameters_read(const GraphView& graph, const ParameterFlow& flow) {
  std::vector<std::vector<std::string>> read(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (flow.is_constant[i]) continue;
    read[i] =
        flow.is_chain[i] ? parameters_out_of(graph.nodes[i], flow) : parameters_into(graph.nodes[i], flow);
  }
  return read;
}

// How many compute nodes consume each parameter (through chains).
std::unordered_map<std::string, int> count_consumers(const ParameterFlow& flow,
                                                     const std::vector<std::vector<std::string>>& read) {
  std::unordered_map<std::string, int> count;
  for (size_t i = 0; i < read.size(); ++i)
    if (is_compute(i, flow))
      for (const auto& p : read[i]) ++count[p];
  return count;
}

// How many nodes (compute or chain) read each parameter with an op that
// its owner's own code produces (UsageOptions::outlines).
std::unordered_map<std::string, int> count_owner_readers(const GraphView& graph,
                                                         const std::vector<std::vector<std::string>>& read,
                                                         const ModuleOutlines& outlines) {
  std::unordered_map<std::string, int> count;
  if (outlines.empty()) return count;
  for (size_t i = 0; i < read.size(); ++i)
    for (const auto& p : read[i]) {
      auto owner = module_of_parameter(p);
      if (owner && outlines.runs(*owner, graph.nodes[i].op_type)) ++count[p];
    }
  return count;
}

// Shared parameters are no evidence, unless the outlines vouch for this
// reader (see UsageOptions::outlines).
void drop_shared(std::vector<std::string>& params, const NodeView& node,
                 const std::unordered_map<std::string, int>& consumers,
                 const std::unordered_map<std::string, int>& owner_readers, const ModuleOutlines& outlines) {
  params.erase(std::remove_if(params.begin(), params.end(),
                              [&](const std::string& p) {
                                auto it = consumers.find(p);
                                if (it == consumers.end() || it->second <= 1) return false;
                                auto owner = module_of_parameter(p);
                                auto readers = owner_readers.find(p);
                                bool vouched = owner && readers != owner_readers.end() &&
                                               outlines.runs(*owner, node.op_type) &&
                                               readers->second <= outlines.calls(*owner);
                                return !vouched;
                              }),
               params.end());
}

}  // namespace

std::vector<UsageAssignment> assign_by_usage(const GraphView& graph, const UsageOptions& options) {
  ParameterFlow flow = trace_parameter_flow(graph);
  auto read = parameters_read(graph, flow);
  auto consumers = count_consumers(flow, read);
  auto owner_readers = count_owner_readers(graph, read, options.outlines);
  std::vector<UsageAssignment> out;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (flow.is_constant[i]) continue;  // constants follow their consumers
    const NodeView& node = graph.nodes[i];
    auto& params = read[i];
    if (!options.use_shared_parameters) drop_shared(params, node, consumers, owner_readers, options.outlines);
    if (auto module = choose_module(params)) {
      std::string owner = options.outlines.running_alias(*module, node.op_type);
      if (owner.empty()) owner = options.outlines.reading_ancestor(*module, node.op_type);
      out.push_back({i, owner.empty() ? *module : owner});
    }
  }
  std::vector<std::optional<std::string>> placed(graph.nodes.size());
  for (const auto& a : out) placed[a.node] = a.module;
  for (auto& a : match_anonymous_weights(graph, flow, options.outlines, placed)) out.push_back(a);
  return out;
}

}  // namespace mx::usage
