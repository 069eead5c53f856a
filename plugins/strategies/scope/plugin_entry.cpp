// The `scope` strategy plugin: assign_from_scopes() behind the shared C
// entry (../common/strategy_plugin.hpp).
#include "scope_strategy.hpp"
#include "strategy_plugin.hpp"

namespace {

struct ScopeStrategy {
  static constexpr const char* name = "scope";
  static mx_strategy::Answer answer(const mx_strategy::Request& request, const mx_strategy::Host&) {
    return mx::scope::assign_from_scopes(request.graph, request.modules);
  }
};

}  // namespace

MX_PLUGIN_ENTRY {
  return mx_strategy::descriptor<ScopeStrategy>(
      "0.2.0", "module scopes in TorchScript-exporter node names (/encoder/layer.0/attention/...)");
}
