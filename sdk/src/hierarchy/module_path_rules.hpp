// What a module path may look like: "" (the root) or '.'-separated
// non-empty segments without '/', whitespace or control characters ('/'
// and ' ' would make tags and scoped names ambiguous; ".." has empty
// segments). The one rule for sidecars, supplied hierarchies and records.
#pragma once
#include <string>

namespace modelexport {

bool is_valid_module_path(const std::string& path);

}  // namespace modelexport
