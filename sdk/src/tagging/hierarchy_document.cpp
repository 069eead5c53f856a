#include "tagging/hierarchy_document.hpp"

#include "util/json_text.hpp"
#include "util/utf8.hpp"

namespace mx {

using json = nlohmann::json;

namespace {

json producer_json(const TaggingProvenance& provenance) {
  return {{"name", "modelexport"},
          {"version", MODELEXPORT_VERSION_STRING},
          {"source", "strategy:" + provenance.strategy}};
}

json model_json(const ModuleTree& tree, const TaggingProvenance& provenance) {
  json model = provenance.model.is_object() ? provenance.model : json::object();
  if (!model.contains("root_class") && !tree.class_of("").empty()) model["root_class"] = tree.class_of("");
  return model;
}

// A small JSON value as the hierarchy parser would hold it after reading its
// text (key order, number kinds).
hierarchy::Json reparsed(const json& j) {
  return hierarchy::Json::parse(dump_text(j));
}

}  // namespace

hierarchy::Document build_document(const onnx::GraphProto& proto, GraphView&& graph,
                                   std::vector<Assignment>&& assignments, ModuleTree& tree,
                                   const TaggingProvenance& provenance) {
  hierarchy::Document doc;
  // Only a supplied hierarchy brings outside JSON into the document
  // ("model", module entries), and load_supplied_hierarchy held it to the
  // depth limit at the same nesting as here (dumping the whole tree again
  // to check it cost a tenth of a million-module tag).
  const json model = model_json(tree, provenance);
  doc.producer = reparsed(producer_json(provenance));
  doc.model = reparsed(model);
  // Each record built once in place (resized records were all written,
  // then written again: 30 MB twice at 200,000 nodes).
  doc.nodes.reserve(assignments.size());
  // Each node's module joins the tree here. Neighbouring nodes often share
  // their module: it is added once. A record's tag is its module's
  // (tag_from_module), not a copy of it.
  const hierarchy::NodeRecord* previous = nullptr;
  size_t row = 0;  // the previous record's module's row in the tree
  // The tree's index slot of a module some nodes ahead is loaded while
  // these are added (at 150,000 modules nearly every new path's slot is a
  // cache miss).
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < assignments.size(); ++i) {
    if (i + kAhead < assignments.size()) tree.prefetch(assignments[i + kAhead].module);
    Assignment& a = assignments[i];
    hierarchy::NodeRecord& r = doc.nodes.emplace_back();
    // The view's name reads as after a trip through JSON text; a record's
    // is the node's name as valid UTF-8 (model::set_hierarchy's rule). The
    // two differ only for names that are not ASCII.
    r.name = std::move(graph.nodes[i].name);
    if (!is_ascii(r.name)) r.name = to_valid_utf8(proto.node(static_cast<int>(i)).name());
    if (!previous || previous->module != a.module) row = tree.add_path(a.module);
    r.tag_from_module = true;
    r.module_at = row;  // the row until the modules' positions are known
    r.module = std::move(a.module);
    r.evidence = *a.evidence;  // propagation placed every node
    // The key of unnamed and duplicate-named nodes (document.hpp).
    r.index = static_cast<int64_t>(i);
    previous = &r;
  }
  // Taken from: freed now, so that building the modules reuses their
  // memory instead of touching fresh pages.
  graph = GraphView();
  assignments = std::vector<Assignment>();
  // Each record notes where its module ends up: its tag is read there, and
  // the save's namespaces read it there instead of searching for the path.
  std::vector<size_t> positions;
  doc.modules = tree.take_modules(&positions);
  for (hierarchy::NodeRecord& r : doc.nodes) r.module_at = positions[r.module_at];
  return doc;
}

}  // namespace mx
