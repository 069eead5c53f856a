// The `scope` strategy plugin: assign_from_scopes() behind the shared C
// entry (../common/strategy_plugin.hpp).
#include "scope_strategy.hpp"
#include "strategy_plugin.hpp"

namespace {

struct ScopeStrategy {
  static constexpr const char* name = "scope";
  static nlohmann::json assign(const nlohmann::json& request, const mx_strategy::Host&) {
    if (!request.contains("graph") || !request.at("graph").contains("nodes"))
      throw mx_strategy::BadRequest(MX_ERR_SCHEMA, "request has no graph.nodes");
    return mx_scope::assign_from_scopes(request);
  }
};

}  // namespace

MX_PLUGIN_ENTRY {
  return mx_strategy::descriptor<ScopeStrategy>(
      "0.1.0", "module scopes in TorchScript-exporter node names (/encoder/layer.0/attention/...)");
}
