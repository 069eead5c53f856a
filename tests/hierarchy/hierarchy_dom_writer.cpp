// The hierarchy document built as a JSON value, member by member: slow, and
// plainly what the schema says. The tests compare the SDK's one writer
// (hierarchy/document_text) with it byte for byte.
#include "hierarchy_dom_writer.hpp"

namespace mx::hierarchy {
namespace {
void merge_extra(Json& into, const Json& extra) {
  for (const auto& item : extra.items())
    if (!into.contains(item.key())) into[item.key()] = item.value();
}
Json forward_to_json(const std::vector<ForwardStep>& steps) {
  Json out = Json::array();
  for (const auto& s : steps) {
    Json j = Json::object();
    j[s.kind == ForwardStep::Kind::op ? "op" : "call"] = s.name;
    if (!s.method.empty()) j["method"] = s.method;
    out.push_back(std::move(j));
  }
  return out;
}
}  // namespace

Json module_to_json(const Module& m) {
  Json j = Json::object();
  j["path"] = m.path;
  j["class"] = m.class_name;
  if (!m.qualified_class().empty()) j["qualified_class"] = m.qualified_class();
  const auto parent = stated_parent(m);
  j["parent"] = parent ? Json(std::string(*parent)) : Json(nullptr);
  j["children"] = m.children;
  j["tag"] = m.tag;
  if (m.parameters()) j["parameters"] = *m.parameters();
  if (m.own_parameters()) j["own_parameters"] = *m.own_parameters();
  if (m.executed()) j["executed"] = *m.executed();
  if (m.execution_order()) j["execution_order"] = *m.execution_order();
  if (m.forward()) j["forward"] = forward_to_json(*m.forward());
  merge_extra(j, m.extra());
  return j;
}

Json modules_to_json(const std::vector<Module>& modules) {
  Json arr = Json::array();
  for (const auto& m : modules) arr.push_back(module_to_json(m));
  return arr;
}

Json document_to_json(const Document& doc) {
  Json j = Json::object();
  j["schema"] = kSchema;
  if (!doc.producer.is_null()) j["producer"] = doc.producer;
  if (!doc.model.is_null()) j["model"] = doc.model;
  j["modules"] = modules_to_json(doc.modules);
  Json nodes = Json::array();
  for (const auto& r : doc.nodes) nodes.push_back(record_to_json(doc, r, true));
  j["nodes"] = nodes;
  j["statistics"] = statistics_json(doc);
  merge_extra(j, doc.extra);
  return j;
}

}  // namespace mx::hierarchy
