#include "file_modules.hpp"

#include "scope_name.hpp"

namespace mx_scope {
namespace {

// "a.b" → "a", "a" → "" (views into `path`).
std::string_view parent_of(std::string_view path) {
  size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : path.substr(0, dot);
}

std::string_view last_of(std::string_view path) {
  size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

// Stops at the first ancestor already there: its own ancestors are too.
void add_with_ancestors(ModulePaths& paths, std::string_view path) {
  while (!path.empty() && paths.emplace(path).second) path = parent_of(path);
}

bool contains(const ModulePaths& paths, std::string_view path, std::string& key) {
  key.assign(path.data(), path.size());
  return paths.count(key) != 0;
}

}  // namespace

std::string_view repeated_call_base(std::string_view step) {
  size_t underscore = step.rfind('_');
  if (underscore == std::string_view::npos || underscore == 0 || underscore + 1 == step.size())
    return {};
  for (size_t i = underscore + 1; i < step.size(); ++i)
    if (step[i] < '0' || step[i] > '9') return {};
  return step.substr(0, underscore);
}

ModulePaths modules_shown_by_file(const std::vector<std::string_view>& node_names,
                                  const std::vector<std::string_view>& initializer_names) {
  ModulePaths owners;  // modules owning a named parameter, and their ancestors
  for (std::string_view name : initializer_names)
    if (name.find("::") == std::string_view::npos)  // "onnx::MatMul_12": anonymous
      add_with_ancestors(owners, parent_of(name));
  ModulePaths paths = owners;
  std::vector<std::string_view> steps;
  std::string path;  // reused: one buffer for every node
  for (std::string_view name : node_names) {
    if (!scope_steps(name, steps)) continue;
    path.clear();
    for (std::string_view step : steps) {
      if (!path.empty()) path += '.';
      path += step;
    }
    add_with_ancestors(paths, path);
  }

  ModulePaths repeated;
  std::string key;
  for (const auto& p : paths) {
    const std::string_view base = repeated_call_base(last_of(p));
    if (base.empty() || owners.count(p)) continue;
    const std::string_view parent = parent_of(p);
    key.assign(parent.data(), parent.size());
    if (!key.empty()) key += '.';
    key += base;
    if (paths.count(key)) repeated.insert(p);
  }
  if (repeated.empty()) return paths;
  // A path goes when it or one of its ancestors is a repeated call.
  for (auto it = paths.begin(); it != paths.end();) {
    bool drop = false;
    for (std::string_view a = *it; !a.empty() && !drop; a = parent_of(a))
      drop = contains(repeated, a, key);
    it = drop ? paths.erase(it) : std::next(it);
  }
  return paths;
}

}  // namespace mx_scope
