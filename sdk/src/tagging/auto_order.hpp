// Which strategies "auto" runs and in which order: metadata (dynamo keys
// name the module outright), then scope (node names), then usage (parameter
// consumption), then any other strategy alphabetically. Frontends never run.
#pragma once
#include <string>
#include <vector>

namespace mx {

std::vector<std::string> auto_strategy_order(std::vector<std::string> strategy_names);

}  // namespace mx
