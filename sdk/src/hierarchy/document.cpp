#include "hierarchy/document.hpp"

namespace modelexport::hierarchy {

const Module* Document::find_module(const std::string& path) const {
  for (const auto& m : modules)
    if (m.path == path) return &m;
  return nullptr;
}

NodeRecord* Document::find_record(const std::string& node_name) {
  for (auto& r : nodes)
    if (r.name == node_name) return &r;
  return nullptr;
}

const NodeRecord* Document::find_record(const std::string& node_name) const {
  return const_cast<Document*>(this)->find_record(node_name);
}

ModuleIndex::ModuleIndex(const Document& doc) {
  by_path_.reserve(doc.modules.size());
  for (const auto& m : doc.modules) by_path_.emplace(m.path, &m);  // first wins, like find_module
}

const Module* ModuleIndex::find(const std::string& path) const {
  auto it = by_path_.find(path);
  return it == by_path_.end() ? nullptr : it->second;
}

Json record_to_json(const NodeRecord& record, bool with_name) {
  Json j = Json::object();
  if (with_name) j["name"] = record.name;
  j["module"] = record.module;
  j["tag"] = record.tag;
  j["evidence"] = evidence_name(record.evidence);
  for (const auto& item : record.extra.items()) j[item.key()] = item.value();
  return j;
}

}  // namespace modelexport::hierarchy
