// The module tree's own consistency, as one list of problems: `validate`
// reports them all, `tag --hierarchy` refuses a supplied tree with any (so
// tagging never writes a tree that validate then calls broken).
//  * every path is a module path (mx/common/module_path.hpp);
//  * paths are unique; exactly one module, "", has no parent;
//  * a parent exists and lists the module among its children;
//  * every listed child exists and names this module as its parent.
// (Cycles and parents that are not path prefixes are refused earlier, by
// validate_consistency, when the document is parsed.)
#pragma once
#include <string>
#include <vector>

#include "hierarchy/document.hpp"

namespace mx::hierarchy {

struct TreeProblem {
  std::string module;   // the module concerned ("" for the tree as a whole)
  std::string message;  // names the module(s) and the problem
};

// At most `limit` problems (a broken 1M-module tree should not make a 1M
// line report).
std::vector<TreeProblem> module_tree_problems(const std::vector<Module>& modules, size_t limit = 1000);

}  // namespace mx::hierarchy
