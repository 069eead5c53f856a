// The symbol a symbolic dim is exactly, read from its sympy text: "s77" or
// "Symbol('s77', positive=True, integer=True)" name s77; any other
// expression ("2*s77") names none. Matched by hand in one pass: the
// std::regex it replaces recursed once per character and overflowed the
// stack on a 300 KB expr_str.
#pragma once
#include <string>
#include <string_view>

namespace mx::torch_export {

// Whether `s` is an identifier: [A-Za-z_][A-Za-z0-9_]*.
bool is_identifier(std::string_view s);

// The symbol `expr` is exactly, or "" when it is an expression.
std::string symbol_of_expr(std::string_view expr);

}  // namespace mx::torch_export
