#include "scope_name.hpp"

namespace mx::scope {
namespace {

// A module name atom character: no whitespace/control characters (dots and
// slashes are separators).
bool atom_char(unsigned char c) {
  return c > 0x20 && c != 0x7f;
}

// Non-empty '.'-separated atoms, each non-empty ("a..b", ".a", "a." are not).
bool is_scope(std::string_view scope) {
  if (scope.empty() || scope.front() == '.' || scope.back() == '.') return false;
  char previous = 0;
  for (char c : scope) {
    if (c == '.' && previous == '.') return false;
    if (c != '.' && !atom_char(static_cast<unsigned char>(c))) return false;
    previous = c;
  }
  return true;
}

// What `scope` adds after the previous scope: a Sequential's item repeats
// the Sequential's own scope ("layer1" → "layer1.0"), so only the rest is new.
std::string_view step_after(std::string_view previous, std::string_view scope) {
  if (!previous.empty() && scope.size() > previous.size() + 1 &&
      scope.compare(0, previous.size(), previous) == 0 && scope[previous.size()] == '.')
    return scope.substr(previous.size() + 1);
  return scope;
}

}  // namespace

bool scope_steps(std::string_view node_name, std::vector<std::string_view>& steps) {
  steps.clear();
  if (node_name.size() < 2 || node_name[0] != '/') return false;
  // Every '/'-separated part but the last (the op's own name: "MatMul",
  // "Constant_3") is a scope.
  std::string_view previous;
  size_t start = 1;
  for (size_t end; (end = node_name.find('/', start)) != std::string_view::npos; start = end + 1) {
    const std::string_view scope = node_name.substr(start, end - start);
    if (!is_scope(scope)) return false;
    steps.push_back(step_after(previous, scope));
    previous = scope;
  }
  return !steps.empty();
}

bool is_root_scope_name(std::string_view node_name) {
  if (node_name.size() < 2 || node_name[0] != '/') return false;
  for (size_t i = 1; i < node_name.size(); ++i)
    if (node_name[i] == '/' || !atom_char(static_cast<unsigned char>(node_name[i]))) return false;
  return true;
}

std::optional<std::string> scope_module_path(std::string_view node_name) {
  std::vector<std::string_view> steps;
  if (!scope_steps(node_name, steps)) return std::nullopt;
  std::string path;
  for (std::string_view step : steps) {
    if (!path.empty()) path += '.';
    path += step;
  }
  return path;
}

}  // namespace mx::scope
