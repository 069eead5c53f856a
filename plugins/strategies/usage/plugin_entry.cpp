// The `usage` strategy plugin: assign_by_usage() behind the shared C entry
// (../common/strategy_plugin.hpp).
#include "request_graph.hpp"
#include "strategy_plugin.hpp"
#include "usage_strategy.hpp"

namespace {

mx_strategy::Answer answer_of(std::vector<mx::usage::UsageAssignment>&& assignments) {
  mx_strategy::Answer answer;  // no classes: parameter names carry paths only
  for (const auto& a : assignments) answer.place(a.node, a.module, "parameter");
  return answer;
}

mx::usage::UsageOptions options_from(const nlohmann::json& options) {
  mx::usage::UsageOptions parsed;
  if (options.is_object()) {
    auto it = options.find("shared_parameters");
    if (it != options.end() && it->is_boolean()) parsed.use_shared_parameters = it->get<bool>();
  }
  return parsed;
}

struct UsageStrategy {
  static constexpr const char* name = "usage";
  static mx_strategy::Answer answer(const mx_strategy::Request& request, const mx_strategy::Host& host) {
    auto graph = mx::usage::usage_view(request.graph);
    auto options = options_from(request.options);
    options.outlines = mx::usage::ModuleOutlines(request.modules);  // the supplied hierarchy's
    auto assignments = mx::usage::assign_by_usage(graph, options);
    size_t by_size = 0;
    for (const auto& a : assignments) by_size += a.by_size;
    host.info(std::to_string(assignments.size() - by_size) + " of " + std::to_string(graph.nodes.size()) +
              " nodes consume named parameters, " + std::to_string(by_size) +
              " renamed weights matched by size and call order");
    return answer_of(std::move(assignments));
  }
};

}  // namespace

MX_PLUGIN_ENTRY {
  return mx_strategy::descriptor<UsageStrategy>(
      "0.2.0",
      "parameter usage: a node belongs to the module whose named parameters "
      "it consumes (directly or through Transpose/Cast/DequantizeLinear chains)");
}
