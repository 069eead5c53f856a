// The part of the host's graph view (docs/plugin-protocol.md, `graph`) that
// the usage strategy needs, decoded once from JSON into plain structs so the
// logic can be unit-tested without building protocol JSON.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace mx_usage {

struct NodeView {
  std::string op_type;
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;
};

struct GraphView {
  std::vector<NodeView> nodes;       // position == the node's index
  std::unordered_set<std::string> initializers;
  // Shapes from the request's "initializer_shapes" (absent for an older host).
  std::unordered_map<std::string, std::vector<int64_t>> shapes;
  // In file order, for the anonymous-weight match (anonymous_weights.hpp).
  std::vector<std::string> initializer_order;
};

// Decodes `graph`; missing or mistyped fields become empty rather than
// throwing, and nodes are placed at their "index" when it is valid, so a
// sparse or reordered list still lines up with the host's numbering.
// `problems` receives one line per field that had to be ignored.
GraphView graph_from_json(const nlohmann::json& graph,
                          std::vector<std::string>& problems);

}  // namespace mx_usage
