#include "dynamo_scope.hpp"

#include "mx/common/module_path.hpp"

namespace mx::metadata {

using mx::common::is_valid_module_path;
namespace {

ScopeChain failure(std::string message) {
  ScopeChain chain;
  chain.error = std::move(message);
  return chain;
}

// Every entry after the root must be a non-empty, valid module path. Paths
// are not required to extend their predecessor: a module may call another
// module it does not own. ':' and quotes are refused too, as they mean a
// mangled value rather than a path.
bool plausible_path(std::string_view path) {
  if (path.empty() || !is_valid_module_path(path)) return false;
  for (char c : path)
    if (c == ':' || c == '\'' || c == '"') return false;
  return true;
}

ScopeChain validate(std::vector<ScopeEntry> modules) {
  if (modules.empty()) return failure("no module entry before the node entry");
  if (!modules.front().path.empty())
    return failure("first entry is '" + modules.front().path + "', not the root ''");
  for (size_t i = 1; i < modules.size(); ++i)
    if (!plausible_path(modules[i].path))
      return failure("entry " + std::to_string(i) + " ('" + modules[i].path + "') is not a module path");
  ScopeChain chain;
  chain.ok = true;
  chain.modules = std::move(modules);
  return chain;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

ScopeChain chain_from_lists(const std::vector<std::string>& name_scopes,
                            const std::vector<std::string>& class_hierarchy) {
  if (name_scopes.size() < 2)
    return failure("name_scopes has " + std::to_string(name_scopes.size()) +
                   " entries; expected the root, modules and the node");
  if (!class_hierarchy.empty() && class_hierarchy.size() != name_scopes.size())
    return failure("class_hierarchy has " + std::to_string(class_hierarchy.size()) +
                   " entries but name_scopes has " + std::to_string(name_scopes.size()));
  std::vector<ScopeEntry> modules;
  for (size_t i = 0; i + 1 < name_scopes.size(); ++i)  // last = the FX node
    modules.push_back({name_scopes[i], class_hierarchy.empty() ? std::string() : class_hierarchy[i]});
  return validate(std::move(modules));
}

ScopeChain chain_from_namespace(std::string_view text) {
  std::vector<ScopeEntry> entries;
  size_t start = 0;
  while (start <= text.size()) {
    size_t slash = text.find('/', start);
    std::string_view segment =
        text.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    size_t colon = segment.find(": ");
    if (colon == std::string_view::npos) return failure("segment '" + std::string(segment) + "' has no ': '");
    entries.push_back(
        {std::string(trim(segment.substr(0, colon))), std::string(trim(segment.substr(colon + 2)))});
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (entries.size() < 2) return failure("namespace has no module before the node entry");
  entries.pop_back();  // the FX node: "linear: aten.linear.default"
  return validate(std::move(entries));
}

std::string short_class(std::string_view qualified_class) {
  size_t dot = qualified_class.rfind('.');
  return std::string(dot == std::string_view::npos ? qualified_class : qualified_class.substr(dot + 1));
}

}  // namespace mx::metadata
