#include "file_modules.hpp"

#include "scope_name.hpp"

namespace mx_scope {
namespace {

std::string parent_of(const std::string& path) {
  size_t dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

std::string last_step(const std::string& path) {
  size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

void add_with_ancestors(std::set<std::string>& paths, std::string path) {
  while (!path.empty() && paths.insert(path).second) path = parent_of(path);
}

bool is_under_or_self(const std::string& base, const std::string& path) {
  return path == base || (path.size() > base.size() && path.compare(0, base.size(), base) == 0 &&
                          path[base.size()] == '.');
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
      add_with_ancestors(owners, parent_of(name));
  std::set<std::string> paths = owners;
  for (const auto& name : node_names)
    if (auto path = scope_module_path(name)) add_with_ancestors(paths, *path);

  std::set<std::string> repeated;
  for (const auto& path : paths) {
    const std::string base = repeated_call_base(last_step(path));
    if (base.empty() || owners.count(path)) continue;
    const std::string parent = parent_of(path);
    if (paths.count(parent.empty() ? base : parent + "." + base)) repeated.insert(path);
  }
  for (auto it = paths.begin(); it != paths.end();) {
    bool drop = false;
    for (const auto& r : repeated) drop = drop || is_under_or_self(r, *it);
    it = drop ? paths.erase(it) : std::next(it);
  }
  return paths;
}

}  // namespace mx_scope
