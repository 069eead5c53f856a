// Rebuilds the module tree of a hierarchy document from the module paths the
// nodes ended up in: every prefix of a used path is a module. Classes come
// from a supplied hierarchy first, then from the strategies' "modules"
// answers; an unknown class is "" (and the tag then uses the path segment).
#pragma once
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "hierarchy/document.hpp"

namespace modelexport {

class ModuleTree {
 public:
  // `supplied`: the "modules" array of a supplied hierarchy (may be empty);
  // its entries are kept as they are, in their order. They are read in
  // place, not copied (a million supplied modules were copied into every
  // tree): `supplied` must outlive the tree, or be a temporary, which the
  // tree then keeps.
  ModuleTree(const nlohmann::json& supplied, const std::map<std::string, std::string>& classes);
  ModuleTree(nlohmann::json&& supplied, const std::map<std::string, std::string>& classes);
  ModuleTree(ModuleTree&&) = default;
  ModuleTree& operator=(ModuleTree&&) = default;
  ModuleTree(const ModuleTree&) = delete;  // entries point into `supplied`
  ModuleTree& operator=(const ModuleTree&) = delete;

  // Adds `path` and all its ancestors.
  void add_path(const std::string& path);

  // Class path, e.g. "/BertModel/BertEncoder/BertLayer.0" (docs/tagging.md).
  // Memoised: a tag depends only on the classes and supplied tags, never on
  // which modules were added, so every path is computed once (tagging asks
  // for the tag of every node's module: 200,000 times for 200,000 nodes).
  const std::string& tag_of(const std::string& path) const;

  // The "modules" array: supplied entries first, then new modules sorted by
  // path; parent/children/tag filled where missing.
  nlohmann::json to_json() const;

  // The same array as hierarchy modules, exactly what parsing to_json()'s
  // text with hierarchy::parse_modules(…, "hierarchy") gives (errors
  // included), without building that JSON: tagging builds the document in
  // memory (going through to_json() was a third of a 100,000-module tag).
  // Supplied entries must have arrays as "children" where they have that
  // key (load_supplied_hierarchy checks it), which to_json() would replace.
  // Without `tags`, tags to_json() would derive are left "" (for checks that
  // do not read them: deriving a million tags is most of the work).
  std::vector<hierarchy::Module> to_modules(bool tags = true) const;

  const std::string& class_of(const std::string& path) const;
  bool contains(const std::string& path) const { return modules_.count(path) != 0; }
  bool has_supplied() const { return !supplied_order_.empty(); }

 private:
  std::string compute_tag(const std::string& path) const;
  std::vector<const std::string*> sorted_paths() const;
  // Output order of to_json()/to_modules(); `missing_parents` receives the
  // parents no entry names (the order points into it).
  std::vector<const std::string*> entry_order(std::vector<std::string>& missing_parents) const;
  hierarchy::Module module_at(size_t i, const std::string& path, bool tags) const;
  std::vector<hierarchy::Module> supplied_to_modules(bool tags) const;

  void add_supplied(const nlohmann::json& supplied);

  nlohmann::json owned_;  // a supplied temporary (moving it keeps its elements in place)
  // path → the supplied entry, or nullptr for a module added by add_path
  // (its entry is {"path": path}; no JSON is allocated for it).
  std::unordered_map<std::string, const nlohmann::json*> modules_;
  std::vector<std::string> supplied_order_;
  // Hashed: a supplied tree puts a million classes here.
  std::unordered_map<std::string, std::string> classes_;
  mutable std::unordered_map<std::string, std::string> tags_;
};

}  // namespace modelexport
