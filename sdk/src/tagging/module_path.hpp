// Module paths as named_modules() spells them: "encoder.layer.0", "" = root.
#pragma once
#include <string>
#include <vector>

#include "hierarchy/module_path_rules.hpp"  // is_valid_module_path

namespace modelexport {


std::vector<std::string> path_segments(const std::string& path);  // "" → {}
std::string parent_path(const std::string& path);                 // "a.b" → "a"
std::string last_segment(const std::string& path);                // "a.b" → "b"

// True when `ancestor` is `path` or one of its ancestors ("" is everyone's).
bool is_ancestor_or_self(const std::string& ancestor, const std::string& path);

// Deepest module that is an ancestor-or-self of both.
std::string common_ancestor(const std::string& a, const std::string& b);

}  // namespace modelexport
