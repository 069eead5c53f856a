#include "mx/aten_onnx/hierarchy_document.hpp"

namespace mx::aten_onnx {
namespace {

// The envelope both documents share. nlohmann::json keeps keys sorted, so
// the order members are set in does not reach the text.
nlohmann::json envelope(const DocumentSource& s, const ModuleTree& tree) {
  const std::string base = s.model_path.substr(s.model_path.find_last_of('/') + 1);
  nlohmann::json model = {{"root_class", tree.root_class}, {"source_file", base}};
  if (s.opset > 0) model["opset"] = s.opset;
  return {{"schema", "modelexport.hierarchy/1"},
          {"producer", {{"name", "modelexport"}, {"version", s.producer_version}, {"source", s.source}}},
          {"model", std::move(model)},
          {"modules", tree.modules}};
}

}  // namespace

HierarchyNodes hierarchy_nodes(const std::vector<NodeRecord>& records, const std::set<std::string>& removed,
                               const std::map<std::string, std::string>& tags) {
  HierarchyNodes h;
  std::map<std::string, int> evidence = {{"direct", 0},    {"scope", 0},      {"metadata", 0},
                                         {"parameter", 0}, {"propagated", 0}, {"root", 0}};
  int at_root = 0;
  for (const auto& r : records) {
    if (removed.count(r.name)) continue;
    auto tag = tags.find(r.module);
    nlohmann::json node = {{"name", r.name},
                           {"module", r.module},
                           {"tag", tag == tags.end() ? std::string() : tag->second},
                           {"evidence", r.evidence}};
    if (!r.source_node.empty()) node["source_node"] = r.source_node;
    if (r.call > 0) node["call"] = r.call;  // absent = the module's first call
    h.nodes.push_back(std::move(node));
    evidence[r.evidence]++;
    at_root += r.module.empty();
  }
  h.statistics = {{"nodes", h.nodes.size()}, {"evidence", evidence}, {"at_root", at_root}};
  return h;
}

nlohmann::json export_document(const DocumentSource& source, const ModuleTree& tree, HierarchyNodes nodes,
                               nlohmann::json graph_passes) {
  nlohmann::json doc = envelope(source, tree);
  doc["nodes"] = std::move(nodes.nodes);
  doc["statistics"] = std::move(nodes.statistics);
  if (!graph_passes.is_null()) doc["graph_passes"] = std::move(graph_passes);
  return doc;
}

nlohmann::json module_tree_document(const DocumentSource& source, const ModuleTree& tree) {
  nlohmann::json doc = envelope(source, tree);
  doc["nodes"] = nlohmann::json::array();
  doc["statistics"] = {{"nodes", 0}};
  return doc;
}

}  // namespace mx::aten_onnx
