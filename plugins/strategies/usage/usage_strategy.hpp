// The usage strategy: a node belongs to the module whose parameters it
// consumes, directly or through a chain of pass-through nodes
// (static_chains.hpp); chain nodes belong to the same module. Node names are
// never read, so files whose names carry no scope are handled alike.
#pragma once
#include <string>
#include <vector>

#include "graph_view.hpp"

namespace mx_usage {

struct UsageOptions {
  // A parameter consumed by more than one compute node is either shared on
  // purpose (GPT-2's tied `wte.weight` used by the lm_head) or the product
  // of the exporter merging equal-valued initializers (every LayerNorm's
  // ones/zeros). Either way its name names only one of the consumers'
  // modules, so by default such a parameter is not used as evidence.
  bool use_shared_parameters = false;
};

struct UsageAssignment {
  size_t node;
  std::string module;
};

std::vector<UsageAssignment> assign_by_usage(const GraphView& graph,
                                             const UsageOptions& options);

}  // namespace mx_usage
