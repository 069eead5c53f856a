#include "scope_name.hpp"

namespace mx_scope {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

// A module name atom: non-empty, no whitespace/control characters (dots and
// slashes are already separators).
bool is_atom(const std::string& atom) {
  if (atom.empty()) return false;
  for (unsigned char c : atom)
    if (c <= 0x20 || c == 0x7f) return false;
  return true;
}

bool is_scope(const std::string& scope) {
  for (const auto& atom : split(scope, '.'))
    if (!is_atom(atom)) return false;
  return true;
}

// What `scope` adds after the previous scope: a Sequential's item repeats
// the Sequential's own scope ("layer1" → "layer1.0"), so only the rest is new.
std::string step_after(const std::string& previous, const std::string& scope) {
  if (!previous.empty() && scope.size() > previous.size() + 1 &&
      scope.compare(0, previous.size(), previous) == 0 && scope[previous.size()] == '.')
    return scope.substr(previous.size() + 1);
  return scope;
}

}  // namespace

std::optional<std::vector<std::string>> scope_steps(const std::string& node_name) {
  if (node_name.size() < 2 || node_name[0] != '/') return std::nullopt;
  std::vector<std::string> parts = split(node_name.substr(1), '/');
  parts.pop_back();  // the op's own name ("MatMul", "Constant_3")
  if (parts.empty()) return std::nullopt;
  std::vector<std::string> steps;
  std::string previous;
  for (const auto& scope : parts) {
    if (!is_scope(scope)) return std::nullopt;
    steps.push_back(step_after(previous, scope));
    previous = scope;
  }
  return steps;
}

bool is_root_scope_name(const std::string& node_name) {
  return node_name.size() >= 2 && node_name[0] == '/' &&
         node_name.find('/', 1) == std::string::npos && is_atom(node_name.substr(1));
}

std::optional<std::string> scope_module_path(const std::string& node_name) {
  auto steps = scope_steps(node_name);
  if (!steps) return std::nullopt;
  std::string path;
  for (const auto& step : *steps) path += (path.empty() ? "" : ".") + step;
  return path;
}

}  // namespace mx_scope
