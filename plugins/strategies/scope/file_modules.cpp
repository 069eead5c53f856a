#include "file_modules.hpp"

#include <string>

#include <tsl/robin_set.h>

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
// `owner`: the paths added are marked as parameter owners.
void add_with_ancestors(ModulePaths& paths, std::string_view path, bool owner) {
  if (path.empty()) return;
  const size_t before = paths.size();
  const std::string_view own = paths.add(path, owner);
  if (paths.size() == before) return;
  for (std::string_view p = parent_of(own); !p.empty() && paths.add_stored(p, owner); p = parent_of(p)) {
  }
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
  // Modules owning a named parameter, and their ancestors, marked: they
  // come first, so "already there" means "already marked".
  ModulePaths paths;
  for (std::string_view name : initializer_names)
    if (name.find("::") == std::string_view::npos)  // "onnx::MatMul_12": anonymous
      add_with_ancestors(paths, parent_of(name), true);
  std::vector<std::string_view> steps;
  std::string path;  // reused: one buffer for every node
  for (std::string_view name : node_names) {
    if (!scope_steps(name, steps)) continue;
    path.clear();
    for (std::string_view step : steps) {
      if (!path.empty()) path += '.';
      path += step;
    }
    add_with_ancestors(paths, path, false);
  }

  std::vector<std::string_view> repeated;  // views into `paths`
  std::string key;
  paths.each([&](std::string_view p) {
    const std::string_view base = repeated_call_base(last_of(p));
    if (base.empty() || paths.marked(p)) return;
    const std::string_view parent = parent_of(p);
    key.assign(parent.data(), parent.size());
    if (!key.empty()) key += '.';
    key += base;
    if (paths.contains(key)) repeated.push_back(p);
  });
  if (repeated.empty()) return paths;
  // A path goes when it or one of its ancestors is a repeated call.
  const tsl::robin_set<std::string_view> gone(repeated.begin(), repeated.end());
  paths.erase_if([&](std::string_view p) {
    for (std::string_view a = p; !a.empty(); a = parent_of(a))
      if (gone.count(a)) return true;
    return false;
  });
  return paths;
}

}  // namespace mx_scope
