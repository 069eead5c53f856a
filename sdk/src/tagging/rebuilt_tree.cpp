#include "tagging/rebuilt_tree.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>
#include <unordered_set>

#include "hierarchy/parse.hpp"
#include "mx/common/module_path.hpp"
#include "util/json_text.hpp"

namespace modelexport {
using mx::common::parent_path;
using mx::common::last_segment;
namespace {

using json = nlohmann::json;

bool is_index(const std::string& segment) {
  return !segment.empty() &&
         std::all_of(segment.begin(), segment.end(), [](unsigned char c) { return std::isdigit(c); });
}

// Containers that are only indexed, never called: they add no tag component.
bool is_pure_container(const std::string& cls) {
  return cls == "ModuleList" || cls == "ModuleDict";
}

}  // namespace

ModuleTree::ModuleTree(const json& supplied, const std::map<std::string, std::string>& classes)
    : classes_(classes) {
  add_supplied(supplied);
  add_path("");
}

ModuleTree::ModuleTree(json&& supplied, const std::map<std::string, std::string>& classes)
    : owned_(std::move(supplied)), classes_(classes) {
  add_supplied(owned_);
  add_path("");
}

void ModuleTree::add_supplied(const json& supplied) {
  if (!supplied.is_array()) return;
  modules_.reserve(supplied.size());
  for (const auto& m : supplied) {
    if (!m.is_object() || !m.contains("path") || !m.at("path").is_string()) continue;
    std::string path = m.at("path").get<std::string>();
    if (modules_.emplace(path, &m).second) supplied_order_.push_back(path);
    // A supplied class beats a strategy's guess.
    if (m.contains("class") && m.at("class").is_string())
      classes_[path] = m.at("class").get<std::string>();
  }
}

void ModuleTree::add_path(const std::string& path) {
  std::string p = path;
  for (;;) {
    modules_.try_emplace(p);  // an existing (supplied) entry is kept
    if (p.empty()) break;
    p = parent_path(p);
  }
}

const std::string& ModuleTree::class_of(const std::string& path) const {
  static const std::string unknown;
  auto it = classes_.find(path);
  return it == classes_.end() ? unknown : it->second;
}

const std::string& ModuleTree::tag_of(const std::string& path) const {
  auto it = tags_.find(path);
  if (it != tags_.end()) return it->second;
  std::string tag = compute_tag(path);
  return tags_.emplace(path, std::move(tag)).first->second;
}

std::string ModuleTree::compute_tag(const std::string& path) const {
  auto it = modules_.find(path);
  if (it != modules_.end() && it->second && it->second->contains("tag") &&
      it->second->at("tag").is_string())
    return it->second->at("tag").get<std::string>();  // supplied tags are authoritative
  const std::string& cls = class_of(path);
  // An unknown root is "/" so that no tag is ever empty (the hierarchy
  // layer's convention); its children then start from "".
  if (path.empty()) return "/" + cls;
  const std::string segment = last_segment(path), parent = parent_path(path);
  std::string parent_tag = tag_of(parent);
  if (parent_tag == "/") parent_tag.clear();
  if (is_pure_container(cls)) return parent_tag;
  if (!cls.empty()) return parent_tag + "/" + cls + (is_index(segment) ? "." + segment : "");
  // Unknown class: mirror the scoped-name style, "layer.0" for list items.
  if (is_index(segment) && !parent.empty()) {
    const std::string& parent_cls = class_of(parent);
    if (parent_cls.empty()) return parent_tag + "." + segment;
    if (is_pure_container(parent_cls)) return parent_tag + "/" + last_segment(parent) + "." + segment;
  }
  return parent_tag + "/" + segment;
}

// Module paths in std::string order (the order of the document's new
// modules, and of the children each of them lists).
std::vector<const std::string*> ModuleTree::sorted_paths() const {
  std::vector<const std::string*> paths;
  paths.reserve(modules_.size());
  for (const auto& kv : modules_) paths.push_back(&kv.first);
  std::sort(paths.begin(), paths.end(),
            [](const std::string* a, const std::string* b) { return *a < *b; });
  return paths;
}

json ModuleTree::to_json() const {
  // Entries in output order: supplied ones first, in their order, then every
  // other path sorted (the parents of supplied paths that no entry names are
  // among them: they only list children). One entry per path, moved into the
  // result: a tree of a million supplied modules used to be copied three
  // times through std::map and std::set.
  std::vector<std::string> missing_parents;
  {
    std::unordered_set<std::string> seen;
    for (const auto& kv : modules_) {
      if (kv.first.empty()) continue;
      std::string parent = parent_path(kv.first);
      if (!modules_.count(parent) && seen.insert(parent).second) missing_parents.push_back(parent);
    }
  }
  std::vector<const std::string*> order;
  order.reserve(modules_.size() + missing_parents.size());
  std::unordered_set<std::string_view> supplied(supplied_order_.begin(), supplied_order_.end());
  for (const auto& path : supplied_order_) order.push_back(&path);
  const size_t first_other = order.size();
  for (const auto& kv : modules_)
    if (!supplied.count(kv.first)) order.push_back(&kv.first);
  for (const auto& path : missing_parents) order.push_back(&path);
  std::sort(order.begin() + static_cast<std::ptrdiff_t>(first_other), order.end(),
            [](const std::string* a, const std::string* b) { return *a < *b; });

  std::vector<json> entries(order.size());
  std::unordered_map<std::string_view, size_t> at;
  at.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) at.emplace(*order[i], i);
  // Children an entry already lists, for entries supplied with some: a set
  // instead of std::find over the array (quadratic for a parent with many
  // children, e.g. 50,000 layers under one encoder).
  std::unordered_map<size_t, std::unordered_set<std::string>> listed;
  for (size_t i = 0; i < order.size(); ++i) {
    const std::string& path = *order[i];
    auto it = modules_.find(path);
    if (it == modules_.end()) continue;  // a missing parent: children only
    json& entry = entries[i];
    entry = it->second ? *it->second : json{{"path", path}};
    if (!entry.contains("class")) entry["class"] = class_of(path);
    if (!entry.contains("tag")) entry["tag"] = tag_of(path);
    if (!entry.contains("parent")) entry["parent"] = path.empty() ? json(nullptr) : json(parent_path(path));
    if (!entry.contains("children")) entry["children"] = json::array();
    const json& children = entry.at("children");
    if (children.is_array() && !children.empty()) {
      auto& set = listed[i];
      for (const auto& c : children)
        if (c.is_string()) set.insert(c.get<std::string>());
    }
  }
  for (const std::string* path : sorted_paths()) {
    if (path->empty()) continue;
    const size_t p = at.at(parent_path(*path));
    json& parent = entries[p];
    if (!parent["children"].is_array()) parent["children"] = json::array();
    auto l = listed.find(p);
    if (l == listed.end() || l->second.insert(*path).second) parent["children"].push_back(*path);
  }
  json out = json::array();
  out.get_ref<json::array_t&>().reserve(entries.size());
  for (auto& entry : entries) out.push_back(std::move(entry));
  return out;
}

std::vector<hierarchy::Module> ModuleTree::to_modules() const {
  // Supplied entries may carry anything (extra keys, wrong types, missing
  // ancestors): they take the JSON route, whose checks and messages are the
  // hierarchy parser's.
  if (!supplied_order_.empty())
    return hierarchy::parse_modules(hierarchy::Json(to_json()), "hierarchy");
  // Only add_path modules: every entry is {"path"} + what to_json fills in,
  // and every parent is present.
  const std::vector<const std::string*> paths = sorted_paths();
  std::vector<hierarchy::Module> out(paths.size());
  std::unordered_map<std::string_view, size_t> at;
  at.reserve(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) at.emplace(*paths[i], i);
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string& path = *paths[i];
    hierarchy::Module& m = out[i];
    m.path = path;
    m.class_name = class_of(path);
    m.tag = tag_of(path);
    if (path.empty()) continue;
    m.parent = parent_path(path);
    // Sorted order: a parent's children are appended in path order, as
    // to_json() lists them.
    out[at.at(*m.parent)].children.push_back(path);
  }
  return out;
}

}  // namespace modelexport
