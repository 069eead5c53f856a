// The `usage` strategy plugin: assign_by_usage() behind the shared C entry
// (../common/strategy_plugin.hpp).
#include "request_graph.hpp"
#include "strategy_plugin.hpp"
#include "usage_strategy.hpp"

namespace {

nlohmann::json response_json(const std::vector<mx_usage::UsageAssignment>& assignments) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& a : assignments)
    list.push_back({{"node", a.node}, {"module", a.module}, {"evidence", "parameter"}});
  // No "modules": parameter names carry paths but no classes.
  return {{"schema", "modelexport.strategy-response/1"}, {"assignments", std::move(list)}};
}

mx_usage::UsageOptions options_from(const nlohmann::json& options) {
  mx_usage::UsageOptions parsed;
  if (options.is_object()) {
    auto it = options.find("shared_parameters");
    if (it != options.end() && it->is_boolean()) parsed.use_shared_parameters = it->get<bool>();
  }
  return parsed;
}

struct UsageStrategy {
  static constexpr const char* name = "usage";
  static nlohmann::json assign(const nlohmann::json& request, const mx_strategy::Host& host) {
    std::vector<std::string> problems;
    auto graph = mx_usage::graph_from_json(request.value("graph", nlohmann::json()), problems);
    // Problems decoding the graph view are the host's bug, not the file's;
    // they are reported once each.
    for (const auto& p : problems) host.warn(p);
    auto options = options_from(request.value("options", nlohmann::json()));
    options.outlines = mx_usage::ModuleOutlines(request.value("modules", nlohmann::json()));
    auto assignments = mx_usage::assign_by_usage(graph, options);
    size_t by_size = 0;
    for (const auto& a : assignments) by_size += a.by_size;
    host.info(std::to_string(assignments.size() - by_size) + " of " +
              std::to_string(graph.nodes.size()) + " nodes consume named parameters, " +
              std::to_string(by_size) + " renamed weights matched by size and call order");
    return response_json(assignments);
  }
};

}  // namespace

MX_PLUGIN_ENTRY {
  return mx_strategy::descriptor<UsageStrategy>(
      "0.1.0",
      "parameter usage: a node belongs to the module whose named parameters "
      "it consumes (directly or through Transpose/Cast/DequantizeLinear chains)");
}
