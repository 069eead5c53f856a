// Validation of a plugin's descriptor, in the order the plugin ABI demands:
// the ABI version first (a plugin from another major may lay the rest of the
// struct out differently), then everything else.
#pragma once
#include <string>

#include "modelexport/plugin.h"

namespace mx {

// Empty when the descriptor is acceptable, else the refusal reason, e.g.
// "built against plugin ABI 2.0, host supports 1.x".
std::string check_descriptor(const mx_plugin_descriptor* descriptor);

// [a-z0-9_-]+ — names appear in CLI arguments, JSON and file names.
bool is_valid_plugin_name(const char* name);

const char* plugin_kind_name(uint32_t kind);

}  // namespace mx
