#include "file_modules.hpp"

#include "scope_name.hpp"
#include "mx/common/module_path.hpp"

namespace mx_scope {
namespace {

using mx::common::is_ancestor_or_self;
using mx::common::last_segment;
using mx::common::parent_path;

void add_with_ancestors(std::set<std::string>& paths, std::string path) {
  while (!path.empty() && paths.insert(path).second) path = parent_path(path);
}

}  // namespace

std::string repeated_call_base(const std::string& step) {
  size_t underscore = step.rfind('_');
  if (underscore == std::string::npos || underscore == 0 || underscore + 1 == step.size())
    return {};
  for (size_t i = underscore + 1; i < step.size(); ++i)
    if (step[i] < '0' || step[i] > '9') return {};
  return step.substr(0, underscore);
}

std::set<std::string> modules_shown_by_file(const std::vector<std::string>& node_names,
                                            const std::vector<std::string>& initializer_names) {
  std::set<std::string> owners;  // modules owning a named parameter, and their ancestors
  for (const auto& name : initializer_names)
    if (name.find("::") == std::string::npos)  // "onnx::MatMul_12": anonymous
      add_with_ancestors(owners, parent_path(name));
  std::set<std::string> paths = owners;
  for (const auto& name : node_names)
    if (auto path = scope_module_path(name)) add_with_ancestors(paths, *path);

  std::set<std::string> repeated;
  for (const auto& path : paths) {
    const std::string base = repeated_call_base(last_segment(path));
    if (base.empty() || owners.count(path)) continue;
    const std::string parent = parent_path(path);
    if (paths.count(parent.empty() ? base : parent + "." + base)) repeated.insert(path);
  }
  for (auto it = paths.begin(); it != paths.end();) {
    bool drop = false;
    for (const auto& r : repeated) drop = drop || is_ancestor_or_self(r, *it);
    it = drop ? paths.erase(it) : std::next(it);
  }
  return paths;
}

}  // namespace mx_scope
