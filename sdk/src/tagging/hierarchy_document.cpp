#include "tagging/hierarchy_document.hpp"

#include "tagging/evidence.hpp"
#include "util/error.hpp"
#include "util/json_text.hpp"

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

namespace {

json producer_json(const TaggingProvenance& provenance) {
  return {{"name", "modelexport"},
          {"version", MODELEXPORT_VERSION_STRING},
          {"source", "strategy:" + provenance.strategy}};
}

json model_json(const ModuleTree& tree, const TaggingProvenance& provenance) {
  json model = provenance.model.is_object() ? provenance.model : json::object();
  if (!model.contains("root_class") && !tree.class_of("").empty())
    model["root_class"] = tree.class_of("");
  return model;
}

// A small JSON value as the hierarchy parser would hold it after reading its
// text (key order, number kinds).
hierarchy::Json reparsed(const json& j) { return hierarchy::Json::parse(dump_text(j)); }

}  // namespace

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
  json model = model_json(tree, provenance);
  json stats = evidence_statistics(assignments);
  stats["strategies"] = provenance.strategies;
  return {{"schema", "modelexport.hierarchy/1"},
          {"producer", producer_json(provenance)},
          {"model", model},
          {"modules", tree.to_json()},
          {"nodes", nodes},
          {"statistics", stats}};
}

hierarchy::Document build_document(GraphView&& graph, std::vector<Assignment>&& assignments,
                                   const ModuleTree& tree, const TaggingProvenance& provenance) {
  hierarchy::Document doc;
  const json model = model_json(tree, provenance);
  if (tree.has_supplied() || !provenance.model.empty()) {
    // Only a supplied hierarchy brings outside JSON into the document: hold
    // it to the depth limit the document's text would have been held to.
    check_json_depth(dump_text(json{{"model", model}, {"modules", tree.to_json()}}), "hierarchy");
  }
  doc.producer = reparsed(producer_json(provenance));
  doc.model = reparsed(model);
  doc.modules = tree.to_modules();
  doc.nodes.resize(assignments.size());
  for (size_t i = 0; i < assignments.size(); ++i) {
    Assignment& a = assignments[i];
    hierarchy::NodeRecord& r = doc.nodes[i];
    const auto evidence = hierarchy::evidence_from_name(a.evidence);
    if (!evidence)  // unreachable: strategies' answers are checked, the core's kinds are valid
      fail(MX_ERR_SCHEMA, "hierarchy: nodes[" + std::to_string(i) + "].evidence: '" + a.evidence +
                              "' is not one of " + hierarchy::evidence_choices());
    r.name = std::move(graph.nodes[i].name);
    r.tag = tree.tag_of(a.module);
    r.module = std::move(a.module);
    r.evidence = *evidence;
    // "index" travels as an extra key (see hierarchy_document()).
    r.extra["index"] = i;
  }
  return doc;
}

}  // namespace modelexport
