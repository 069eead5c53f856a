// Rebuilds the module tree of a hierarchy document from the module paths the
// nodes ended up in: every prefix of a used path is a module. Classes come
// from a supplied hierarchy first, then from the strategies' "modules"
// answers; an unknown class is "" (and the tag then uses the path segment).
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace modelexport {

class ModuleTree {
 public:
  // `supplied`: the "modules" array of a supplied hierarchy (may be empty);
  // its entries are kept as they are, in their order.
  ModuleTree(const nlohmann::json& supplied, const std::map<std::string, std::string>& classes);

  // Adds `path` and all its ancestors.
  void add_path(const std::string& path);

  // Class path, e.g. "/BertModel/BertEncoder/BertLayer.0" (docs/tagging.md).
  std::string tag_of(const std::string& path) const;

  // The "modules" array: supplied entries first, then new modules sorted by
  // path; parent/children/tag filled where missing.
  nlohmann::json to_json() const;

  const std::string& class_of(const std::string& path) const;
  bool contains(const std::string& path) const { return modules_.count(path) != 0; }

 private:
  std::map<std::string, nlohmann::json> modules_;  // path → entry
  std::vector<std::string> supplied_order_;
  std::map<std::string, std::string> classes_;
};

}  // namespace modelexport
