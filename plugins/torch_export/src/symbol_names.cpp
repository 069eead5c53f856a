#include "symbol_names.hpp"

namespace mx::torch_export {
namespace {

bool identifier_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool identifier_char(char c) {
  return identifier_start(c) || (c >= '0' && c <= '9');
}

}  // namespace

bool is_identifier(std::string_view s) {
  if (s.empty() || !identifier_start(s[0])) return false;
  for (char c : s)
    if (!identifier_char(c)) return false;
  return true;
}

std::string symbol_of_expr(std::string_view expr) {
  if (is_identifier(expr)) return std::string(expr);
  // Symbol('<identifier>'<anything but a line break>)
  constexpr std::string_view kOpen = "Symbol('";
  if (expr.substr(0, kOpen.size()) != kOpen || expr.back() != ')') return "";
  const std::string_view rest = expr.substr(kOpen.size());
  const size_t quote = rest.find('\'');
  if (quote == std::string_view::npos || !is_identifier(rest.substr(0, quote))) return "";
  // The regex's '.' matched no line terminator between the name and ')'.
  if (rest.find_first_of("\n\r", quote) != std::string_view::npos) return "";
  return std::string(rest.substr(0, quote));
}

}  // namespace mx::torch_export
