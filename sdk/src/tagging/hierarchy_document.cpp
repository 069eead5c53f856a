#include "tagging/hierarchy_document.hpp"

#include "tagging/evidence.hpp"

namespace modelexport {

using json = nlohmann::json;

json evidence_statistics(const std::vector<Assignment>& assignments) {
  json counts = json::object();
  for (const auto& kind : all_evidence_kinds()) counts[kind] = 0;
  int64_t at_root = 0;
  for (const auto& a : assignments) {
    counts[a.evidence] = counts.value(a.evidence, 0) + 1;
    at_root += a.module.empty();
  }
  // at_root: nodes on module "" whatever their evidence (docs/hierarchy-schema.md)
  return {{"nodes", assignments.size()}, {"evidence", counts}, {"at_root", at_root}};
}

json hierarchy_document(const GraphView& graph, const std::vector<Assignment>& assignments,
                        const ModuleTree& tree, const TaggingProvenance& provenance) {
  json nodes = json::array();
  for (size_t i = 0; i < assignments.size(); ++i) {
    const Assignment& a = assignments[i];
    // "index" (an extra key the schema keeps) identifies unnamed nodes.
    nodes.push_back({{"name", graph.nodes[i].name},
                     {"index", i},
                     {"module", a.module},
                     {"tag", tree.tag_of(a.module)},
                     {"evidence", a.evidence}});
  }
  json model = provenance.model.is_object() ? provenance.model : json::object();
  if (!model.contains("root_class") && !tree.class_of("").empty())
    model["root_class"] = tree.class_of("");
  json stats = evidence_statistics(assignments);
  stats["strategies"] = provenance.strategies;
  return {{"schema", "modelexport.hierarchy/1"},
          {"producer", {{"name", "modelexport"},
                        {"version", MODELEXPORT_VERSION_STRING},
                        {"source", "strategy:" + provenance.strategy}}},
          {"model", model},
          {"modules", tree.to_json()},
          {"nodes", nodes},
          {"statistics", stats}};
}

}  // namespace modelexport
