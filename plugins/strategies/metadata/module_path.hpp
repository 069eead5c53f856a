// The module-path rule the host enforces on every answer
// (sdk/src/tagging/module_path.hpp, docs/plugin-protocol.md): "" for the root,
// otherwise '.'-separated non-empty segments without '/', whitespace or
// control characters. The host rejects a whole response that breaks it, so
// every path read from file content is checked here first and a bad one
// becomes a warning for that node instead.
#pragma once
#include <string_view>

namespace mx_metadata {

bool is_valid_module_path(std::string_view path);

}  // namespace mx_metadata
