// Assembles the hierarchy document (docs/hierarchy-schema.md) that tagging
// stores on the model: module tree, one record per node, statistics.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tagging/assignment.hpp"
#include "tagging/graph_view.hpp"
#include "tagging/module_tree.hpp"

namespace modelexport {

struct TaggingProvenance {
  std::string strategy;                 // as requested: "scope", "auto", …
  std::vector<std::string> strategies;  // the plugins actually run, in order
  nlohmann::json model = nlohmann::json::object();  // kept from a supplied document
};

nlohmann::json hierarchy_document(const GraphView& graph,
                                  const std::vector<Assignment>& assignments,
                                  const ModuleTree& tree,
                                  const TaggingProvenance& provenance);

// {"nodes": N, "evidence": {kind: count for every kind}}.
nlohmann::json evidence_statistics(const std::vector<Assignment>& assignments);

}  // namespace modelexport
