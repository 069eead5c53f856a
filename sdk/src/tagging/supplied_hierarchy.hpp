// The "hierarchy" tagging option: a hierarchy document given inline (JSON
// object) or as the path of a JSON file. It supplies module classes and
// tags (e.g. from a frontend's module_tree) that node names cannot carry.
#pragma once
#include <optional>

#include <nlohmann/json.hpp>

#include "tagging/rebuilt_tree.hpp"

namespace mx {

struct SuppliedHierarchy {
  nlohmann::json document;  // as given (null: no hierarchy)
  // Its modules, read once, checked as the tree tagging will write
  // (completed), and kept for it: set when `document` is.
  std::optional<ModuleTree> tree;
};

// null → null. Throws MX_ERR_IO (unreadable file), MX_ERR_PARSE (not JSON),
// MX_ERR_SCHEMA (no "modules" array), MX_ERR_INVALID_ARGUMENT (other types).
SuppliedHierarchy load_supplied_hierarchy(const nlohmann::json& option);

}  // namespace mx
