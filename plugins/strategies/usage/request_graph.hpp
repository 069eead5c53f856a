// The part of the graph (mx_strategy::Graph: the host's reader or a JSON
// request) that the usage strategy needs, copied once into plain structs
// so the logic can be unit-tested without a host.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "strategy_graph.hpp"

namespace mx::usage {

struct NodeView {
  std::string op_type;
  std::vector<std::string> inputs;  // "" marks an omitted optional input
  std::vector<std::string> outputs;
};

struct GraphView {
  std::vector<NodeView> nodes;  // position == the node's index
  std::unordered_set<std::string> initializers;
  // Initializer shapes, when the sender gave them (an older host did not).
  std::unordered_map<std::string, std::vector<int64_t>> shapes;
  // In file order, for the anonymous-weight match (anonymous_weights.hpp).
  std::vector<std::string> initializer_order;
};

GraphView usage_view(const mx_strategy::Graph& graph);

}  // namespace mx::usage
