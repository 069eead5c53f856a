#include "tagging/rebuilt_tree.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>
#include <unordered_set>

#include "hierarchy/parse.hpp"
#include "mx/common/module_path.hpp"
#include "util/error.hpp"
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
    : classes_(classes.begin(), classes.end()) {
  add_supplied(supplied);
  add_path("");
}

ModuleTree::ModuleTree(json&& supplied, const std::map<std::string, std::string>& classes)
    : owned_(std::move(supplied)), classes_(classes.begin(), classes.end()) {
  add_supplied(owned_);
  add_path("");
}

void ModuleTree::add_supplied(const json& supplied) {
  if (!supplied.is_array()) return;
  modules_.reserve(supplied.size());
  classes_.reserve(classes_.size() + supplied.size());
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

std::vector<const std::string*> ModuleTree::entry_order(
    std::vector<std::string>& missing_parents) const {
  // Supplied entries first, in their order, then every other path sorted
  // (the parents of supplied paths that no entry names are among them: they
  // only list children).
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
  return order;
}

json ModuleTree::to_json() const {
  // One entry per path, moved into the result: a tree of a million supplied
  // modules used to be copied three times through std::map and std::set.
  std::vector<std::string> missing_parents;
  const std::vector<const std::string*> order = entry_order(missing_parents);

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

hierarchy::Module ModuleTree::module_at(size_t i, const std::string& path, bool tags) const {
  const json* entry = modules_.at(path);
  hierarchy::Module m;
  if (!entry) {  // added by add_path: {"path"} + what to_json fills in
    m.path = path;
    m.class_name = class_of(path);
    if (tags) m.tag = tag_of(path);
    if (!path.empty()) m.parent = parent_path(path);
    return m;
  }
  // A supplied entry is read by the hierarchy parser (its checks and
  // messages), with what to_json would fill in where it is missing.
  const std::string at = "modules[" + std::to_string(i) + "]";
  if (entry->contains("class")) {
    m = hierarchy::parse_module_entry(*entry, "hierarchy", at);
  } else {
    json filled = *entry;
    filled["class"] = class_of(path);
    m = hierarchy::parse_module_entry(filled, "hierarchy", at);
  }
  if (tags && !entry->contains("tag")) m.tag = tag_of(path);
  if (!entry->contains("parent")) {
    m.parent.reset();
    if (!path.empty()) m.parent = parent_path(path);
  }
  return m;
}

std::vector<hierarchy::Module> ModuleTree::supplied_to_modules(bool tags) const {
  std::vector<std::string> missing_parents;
  const std::vector<const std::string*> order = entry_order(missing_parents);
  std::vector<hierarchy::Module> out;
  out.reserve(order.size());
  std::unordered_map<std::string_view, size_t> at;
  at.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    // A missing parent's entry in to_json() lists only children: the
    // parser's first complaint about it is its path.
    if (!modules_.count(*order[i]))
      fail(MX_ERR_SCHEMA,
           "hierarchy: modules[" + std::to_string(i) + "].path: required field is missing");
    out.push_back(module_at(i, *order[i], tags));
    at.emplace(*order[i], i);
  }
  // Children to_json() appends: each path its parent does not list yet, in
  // path order. Listed children are named by their key in modules_ (stable
  // storage; a child that is no module can never be appended anyway).
  struct PairHash {
    size_t operator()(const std::pair<size_t, const std::string*>& p) const {
      return std::hash<const void*>()(p.second) * 31 + p.first;
    }
  };
  std::unordered_set<std::pair<size_t, const std::string*>, PairHash> listed;
  for (size_t i = 0; i < out.size(); ++i)
    for (const auto& c : out[i].children)
      if (auto it = modules_.find(c); it != modules_.end()) listed.emplace(i, &it->first);
  std::vector<std::pair<const std::string*, size_t>> appended;  // path, parent row
  for (const auto& kv : modules_) {
    if (kv.first.empty()) continue;
    const size_t p = at.at(parent_path(kv.first));
    if (listed.insert({p, &kv.first}).second) appended.emplace_back(&kv.first, p);
  }
  std::sort(appended.begin(), appended.end(),
            [](const auto& a, const auto& b) { return *a.first < *b.first; });
  for (const auto& [path, p] : appended) out[p].children.push_back(*path);
  return out;
}

std::vector<hierarchy::Module> ModuleTree::to_modules(bool tags) const {
  if (!supplied_order_.empty()) return supplied_to_modules(tags);
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
    if (tags) m.tag = tag_of(path);
    if (path.empty()) continue;
    m.parent = parent_path(path);
    // Sorted order: a parent's children are appended in path order, as
    // to_json() lists them.
    out[at.at(*m.parent)].children.push_back(path);
  }
  return out;
}

}  // namespace modelexport
