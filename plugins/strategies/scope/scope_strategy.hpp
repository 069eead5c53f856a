// The "assign" operation of the scope strategy (docs/plugin-protocol.md):
// every node whose name carries a module scope ("/encoder/layer.0/…") is
// placed in that module, snapped to the supplied tree `modules` (the
// supplied hierarchy's) or, without one, to the modules the file
// itself shows. Nodes without a scope are left out; the core propagates to
// them.
#pragma once
#include <nlohmann/json.hpp>

#include "strategy_plugin.hpp"

namespace mx::scope {

mx_strategy::Answer assign_from_scopes(const mx_strategy::Graph& graph, const mx_strategy::Modules& modules);

}  // namespace mx::scope
