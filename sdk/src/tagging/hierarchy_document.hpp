// Assembles the hierarchy document (docs/hierarchy-schema.md) that tagging
// stores on the model: module tree, one record per node, statistics.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hierarchy/document.hpp"
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

// The same document in the hierarchy layer's form: exactly what
// hierarchy::parse_document(hierarchy_document(…)'s text, "hierarchy") gives
// (statistics aside: they are derived data the model recomputes on every
// write), built without the JSON. Tagging stores it with
// model::set_hierarchy, which validates it as the public setter would.
// Consumes the names and assignments (moved into the records).
hierarchy::Document build_document(GraphView&& graph, std::vector<Assignment>&& assignments,
                                   const ModuleTree& tree, const TaggingProvenance& provenance);

// {"nodes": N, "evidence": {kind: count for every kind}}.
nlohmann::json evidence_statistics(const std::vector<Assignment>& assignments);

}  // namespace modelexport
