#include "parameter_name.hpp"

namespace mx::usage {
namespace {

bool is_identifier_char(char c, bool first) {
  bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  return alpha || (!first && c >= '0' && c <= '9');
}

bool is_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !is_identifier_char(s[0], true)) return false;
  for (char c : s.substr(1))
    if (!is_identifier_char(c, false)) return false;
  return true;
}

// ModuleDict keys may hold more than identifier characters; '-' is the one
// seen in practice. ':' and '/' never occur (they mark invented names).
bool is_path_component(std::string_view s) {
  if (is_identifier(s) || is_digits(s)) return true;
  if (s.empty()) return false;
  for (char c : s)
    if (c != '-' && !is_identifier_char(c, false)) return false;
  return true;
}

}  // namespace

std::optional<std::string> module_of_parameter(std::string_view name) {
  size_t last_dot = name.rfind('.');
  if (last_dot == std::string_view::npos) return std::nullopt;
  // The parameter's own name must be an identifier: `input.1` (a TorchScript
  // value name) ends in a number and is no parameter.
  if (!is_identifier(name.substr(last_dot + 1))) return std::nullopt;
  size_t start = 0;
  while (start <= last_dot) {
    size_t dot = name.find('.', start);
    if (!is_path_component(name.substr(start, dot - start))) return std::nullopt;
    start = dot + 1;
  }
  return std::string(name.substr(0, last_dot));
}

}  // namespace mx::usage
