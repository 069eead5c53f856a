// Maps the strategy name given to mx_registry_tag to the plugins to run.
#pragma once
#include <string>
#include <vector>

#include "registry/registry.hpp"

namespace mx {

// "auto" → every loaded strategy in auto_strategy_order(); otherwise the
// strategy of that name. MX_ERR_NOT_FOUND lists the available strategies.
std::vector<const Plugin*> select_strategies(const Registry& registry, const std::string& name);

}  // namespace mx
