#include "file_modules.hpp"

#include <algorithm>
#include <string>

#include <tsl/robin_map.h>
#include <tsl/robin_set.h>

#include "mx/common/module_path.hpp"
#include "scope_name.hpp"

namespace mx::scope {
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
  for (std::string_view p = parent_view(own); !p.empty() && paths.add_stored(p, owner); p = parent_view(p)) {}
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

// Would the candidates below be none? Every '.'-prefix of the paths they
// visit is one whose last atom is one of the path's own.
bool any_repeated_call_atom(const std::vector<std::string_view>& scope_paths,
                            const std::vector<std::string_view>& initializer_names) {
  for (std::string_view name : initializer_names)
    if (named_owner(name) && has_repeated_call_atom(parent_view(name))) return true;
  std::string_view previous;
  for (std::string_view path : scope_paths) {
    if (path == previous) continue;  // a module's nodes come together
    if (has_repeated_call_atom(path)) return true;
    previous = path;
  }
  return false;
}

}  // namespace

bool scope_path_of(std::string_view node_name, std::vector<std::string_view>& steps, std::string& path) {
  if (!scope_steps(node_name, steps)) return false;
  path.clear();
  for (std::string_view step : steps) {
    if (!path.empty()) path += '.';
    path += step;
  }
  return true;
}

bool shows_repeated_calls(const std::vector<std::string_view>& node_names,
                          const std::vector<std::string_view>& initializer_names) {
  mx::common::StringBlocks text;
  std::vector<std::string_view> paths, steps;
  std::string path;
  for (std::string_view name : node_names)
    paths.push_back(scope_path_of(name, steps, path) ? text.store(path) : std::string_view());
  return shows_repeated_calls_on_paths(paths, initializer_names);
}

bool has_repeated_call_atom(std::string_view path) {
  if (path.find('_') == std::string_view::npos) return false;  // most paths: one memchr
  bool found = false;
  each_prefix(path, [&](std::string_view q) { found = found || !repeated_call_base(last_view(q)).empty(); });
  return found;
}

bool shows_repeated_calls_on_paths(const std::vector<std::string_view>& scope_paths,
                                   const std::vector<std::string_view>& initializer_names) {
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
    for (std::string_view path : scope_paths) {
      if (path.empty()) continue;
      each_prefix_not_of(path, previous, [&](std::string_view q) { visit(q, false); });
      previous = path;
    }
  };
  // Candidates: paths whose last step looks like a repeated call. Most
  // files have none (no `_<digits>` anywhere): one scan, no tables.
  if (!any_repeated_call_atom(scope_paths, initializer_names)) return false;
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
  if (underscore == std::string_view::npos || underscore == 0 || underscore + 1 == step.size()) return {};
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

}  // namespace mx::scope
