// mx_registry_create's options JSON, read strictly: an unknown key is
// MX_ERR_INVALID_ARGUMENT so a typo ("plugin_dir") is not silently ignored.
#pragma once
#include "registry/registry.hpp"

namespace mx {

RegistryOptions parse_registry_options(const char* options_json);

// Parses an options string; NULL or "" → empty object. Malformed →
// MX_ERR_INVALID_ARGUMENT. Shared by every registry entry point.
nlohmann::json parse_options_json(const char* options_json, const char* what);

}  // namespace mx
