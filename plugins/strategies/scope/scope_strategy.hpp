// The "assign" operation of the scope strategy: request JSON → response JSON
// (docs/plugin-protocol.md). Nodes without a scope are left out; the core
// propagates to them.
#pragma once
#include <nlohmann/json.hpp>

namespace mx_scope {

nlohmann::json assign_from_scopes(const nlohmann::json& request);

}  // namespace mx_scope
