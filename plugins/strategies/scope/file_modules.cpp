#include "file_modules.hpp"

#include <algorithm>
#include <string>

#include <tsl/robin_map.h>
#include <tsl/robin_set.h>

#include "mx/common/module_path.hpp"
#include "scope_name.hpp"

namespace mx_scope {
namespace {

using mx::common::last_view;
using mx::common::parent_view;

// Stops at the first ancestor already there: its own ancestors are too.
// `owner`: the paths added are marked as parameter owners.
void add_with_ancestors(ModulePaths& paths, std::string_view path, bool owner) {
  if (path.empty()) return;
  const size_t before = paths.size();
  const std::string_view own = paths.add(path, owner);
  if (paths.size() == before) return;
  for (std::string_view p = parent_view(own); !p.empty() && paths.add_stored(p, owner); p = parent_view(p)) {
  }
}

// Visits every '.'-prefix of `path`, itself last ("a.b" → "a", "a.b").
template <class Visit>
void each_prefix(std::string_view path, Visit visit) {
  for (size_t dot = path.find('.');; dot = path.find('.', dot + 1)) {
    visit(path.substr(0, dot == std::string_view::npos ? path.size() : dot));
    if (dot == std::string_view::npos) return;
  }
}

// The same, leaving out the prefixes that are also '.'-prefixes of
// `previous` (visited with it). Nodes come in graph order, so neighbours
// share their module or most of its ancestors: at 200,000 nodes visiting
// every prefix of every node's path was a fifth of the strategy.
template <class Visit>
void each_prefix_not_of(std::string_view path, std::string_view previous, Visit visit) {
  // The longest '.'-prefix both have, by its length (kNone: none).
  constexpr size_t kNone = std::string_view::npos;
  size_t shared = kNone;
  if (previous.empty()) return each_prefix(path, visit);  // nothing visited yet
  const size_t limit = std::min(path.size(), previous.size());
  for (size_t i = 0;; ++i) {  // path[0, i) == previous[0, i) here
    const bool ends_in_path = i == path.size() || path[i] == '.';
    const bool ends_in_previous = i == previous.size() || previous[i] == '.';
    if (ends_in_path && ends_in_previous) shared = i;
    if (i == limit || path[i] != previous[i]) break;
  }
  if (shared == path.size()) return;  // path is previous or one of its ancestors
  each_prefix(path, [&](std::string_view q) {
    if (shared == kNone || q.size() > shared) visit(q);
  });
}

bool named_owner(std::string_view initializer) {
  return initializer.find("::") == std::string_view::npos;  // "onnx::MatMul_12": anonymous
}

}  // namespace

bool scope_path_of(std::string_view node_name, std::vector<std::string_view>& steps,
                   std::string& path) {
  if (!scope_steps(node_name, steps)) return false;
  path.clear();
  for (std::string_view step : steps) {
    if (!path.empty()) path += '.';
    path += step;
  }
  return true;
}

ScopePaths::ScopePaths(const std::vector<std::string_view>& node_names) {
  of_node.reserve(node_names.size());
  std::vector<std::string_view> steps;
  std::string path;
  // A path depends only on the name before its last '/' (the op's own
  // name is no scope).
  std::string_view previous_scopes;
  bool first = true;
  for (std::string_view name : node_names) {
    const size_t slash = name.rfind('/');
    const std::string_view scopes = slash == std::string_view::npos ? std::string_view() : name.substr(0, slash);
    if (!first && slash != std::string_view::npos && scopes == previous_scopes) {
      of_node.push_back(of_node.back());
      continue;
    }
    first = false;
    previous_scopes = scopes;
    of_node.push_back(scope_path_of(name, steps, path) ? text.store(path) : std::string_view());
  }
}

bool shows_repeated_calls(const std::vector<std::string_view>& node_names,
                          const std::vector<std::string_view>& initializer_names) {
  return shows_repeated_calls(ScopePaths(node_names), initializer_names);
}

bool shows_repeated_calls(const ScopePaths& paths, const std::vector<std::string_view>& initializer_names) {
  // Visits the paths modules_shown_by_file starts from (each with its
  // ancestors: the '.'-prefixes); `owner` for those of named parameters.
  // Visiting a path twice changes nothing in either pass below, so each
  // list visits only the prefixes its previous entry did not (per list:
  // the passes treat owners and nodes apart).
  auto each_path = [&](auto visit) {
    std::string_view previous;
    for (std::string_view name : initializer_names) {
      if (!named_owner(name) || parent_view(name).empty()) continue;
      each_prefix_not_of(parent_view(name), previous, [&](std::string_view q) { visit(q, true); });
      previous = parent_view(name);
    }
    previous = {};
    for (std::string_view path : paths.of_node) {
      if (path.empty()) continue;
      each_prefix_not_of(path, previous, [&](std::string_view q) { visit(q, false); });
      previous = path;
    }
  };
  // Candidates: paths whose last step looks like a repeated call.
  std::vector<std::string> candidates;
  tsl::robin_map<std::string, size_t> candidate_index;
  each_path([&](std::string_view q, bool) {
    if (!repeated_call_base(last_view(q)).empty() &&
        candidate_index.emplace(std::string(q), candidates.size()).second)
      candidates.emplace_back(q);
  });
  if (candidates.empty()) return false;
  // Each candidate's sibling `parent.base`: is it a module, is the
  // candidate a parameter owner?
  tsl::robin_map<std::string, std::vector<size_t>> sibling_of;
  for (size_t c = 0; c < candidates.size(); ++c) {
    const std::string_view parent = parent_view(candidates[c]);
    std::string key(parent);
    if (!key.empty()) key += '.';
    key += repeated_call_base(last_view(candidates[c]));
    sibling_of[key].push_back(c);
  }
  std::vector<bool> owner(candidates.size(), false), sibling_seen(candidates.size(), false);
  std::string key;
  each_path([&](std::string_view q, bool owns) {
    key.assign(q.data(), q.size());
    if (owns) {
      auto c = candidate_index.find(key);
      if (c != candidate_index.end()) owner[c->second] = true;
    }
    auto s = sibling_of.find(key);
    if (s != sibling_of.end())
      for (size_t c : s->second) sibling_seen[c] = true;
  });
  for (size_t c = 0; c < candidates.size(); ++c)
    if (!owner[c] && sibling_seen[c]) return true;
  return false;
}

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
    if (named_owner(name)) add_with_ancestors(paths, parent_view(name), true);
  std::vector<std::string_view> steps;
  std::string path;  // reused: one buffer for every node
  for (std::string_view name : node_names)
    if (scope_path_of(name, steps, path)) add_with_ancestors(paths, path, false);

  std::vector<std::string_view> repeated;  // views into `paths`
  std::string key;
  paths.each([&](std::string_view p) {
    const std::string_view base = repeated_call_base(last_view(p));
    if (base.empty() || paths.marked(p)) return;
    const std::string_view parent = parent_view(p);
    key.assign(parent.data(), parent.size());
    if (!key.empty()) key += '.';
    key += base;
    if (paths.contains(key)) repeated.push_back(p);
  });
  if (repeated.empty()) return paths;
  // A path goes when it or one of its ancestors is a repeated call.
  const tsl::robin_set<std::string_view> gone(repeated.begin(), repeated.end());
  paths.erase_if([&](std::string_view p) {
    for (std::string_view a = p; !a.empty(); a = parent_view(a))
      if (gone.count(a)) return true;
    return false;
  });
  return paths;
}

}  // namespace mx_scope
