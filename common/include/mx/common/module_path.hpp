// Module paths as torch's named_modules() spells them: "encoder.layer.0",
// "" for the root. The one implementation of the path arithmetic the core,
// the frontends and the strategy plugins share (std only).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mx::common {

// What a module path may look like: "" (the root) or '.'-separated
// non-empty segments without '/', whitespace or control characters ('/'
// and ' ' would make tags and scoped names ambiguous; ".." has empty
// segments). The one rule for sidecars, supplied hierarchies, records and
// strategy answers (docs/plugin-protocol.md).
bool is_valid_module_path(std::string_view path);

std::vector<std::string> path_segments(std::string_view path);  // "" → {}, "a.b" → {a, b}
std::string parent_path(std::string_view path);                 // "a.b" → "a", "a" → ""
std::string last_segment(std::string_view path);                // "a.b" → "b", "a" → "a"
// The same as views into `path`, for loops over many paths (no copy).
inline std::string_view parent_view(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : path.substr(0, dot);
}
inline std::string_view last_view(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? path : path.substr(dot + 1);
}
std::string join_path(std::string_view base,
                      std::string_view rel);    // "a"+"b.c" → "a.b.c"; "" joins to the other
std::size_t path_depth(std::string_view path);  // "" → 0, "a.b" → 2

// True when `ancestor` is `path` or one of its ancestors ("" is everyone's;
// "a.b" is not an ancestor of "a.bc").
bool is_ancestor_or_self(std::string_view ancestor, std::string_view path);
// "a.b.c" relative to its ancestor-or-self "a" → "b.c"; to itself → "".
std::string relative_path(std::string_view path, std::string_view ancestor);
// Deepest module that is an ancestor-or-self of both.
std::string common_ancestor(std::string_view a, std::string_view b);
// The same as a view into `a` (a prefix of each).
std::string_view common_ancestor_view(std::string_view a, std::string_view b);

}  // namespace mx::common
