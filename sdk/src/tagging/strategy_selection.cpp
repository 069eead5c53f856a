#include "tagging/strategy_selection.hpp"

#include "tagging/auto_order.hpp"
#include "util/error.hpp"

namespace mx {

std::vector<const Plugin*> select_strategies(const Registry& registry, const std::string& name) {
  std::vector<const Plugin*> chosen;
  if (name == "auto") {
    std::vector<std::string> names;
    for (const Plugin* p : registry.plugins())
      if (p->is_strategy()) names.push_back(p->name());
    for (const auto& n : auto_strategy_order(names)) chosen.push_back(registry.find(n));
    if (chosen.empty()) fail(MX_ERR_NOT_FOUND, "strategy 'auto': no strategy plugins are loaded");
    return chosen;
  }
  const Plugin* plugin = registry.find(name);
  if (!plugin || !plugin->is_strategy())
    fail(MX_ERR_NOT_FOUND, "no strategy plugin named '" + name +
                               "' (available: " + registry.names_of_kind(MX_PLUGIN_STRATEGY) + ", auto)");
  chosen.push_back(plugin);
  return chosen;
}

}  // namespace mx
