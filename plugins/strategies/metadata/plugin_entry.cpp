// The `metadata` strategy plugin: assign_from_metadata() behind the shared C
// entry (../common/strategy_plugin.hpp).
#include "metadata_strategy.hpp"
#include "strategy_plugin.hpp"

namespace {

// Warnings beyond this many are summarised in one line, so a file whose
// every node is malformed does not flood the log.
constexpr size_t kMaxWarningLines = 20;

void log_warnings(const mx_strategy::Host& host, const std::vector<std::string>& warnings) {
  for (size_t i = 0; i < warnings.size() && i < kMaxWarningLines; ++i) host.warn(warnings[i]);
  if (warnings.size() > kMaxWarningLines)
    host.warn(std::to_string(warnings.size() - kMaxWarningLines) +
              " more malformed metadata values not shown");
}

nlohmann::json response_json(const mx_metadata::MetadataResult& result) {
  nlohmann::json assignments = nlohmann::json::array();
  for (const auto& a : result.assignments)
    assignments.push_back({{"node", a.node}, {"module", a.module}, {"evidence", "metadata"}});
  nlohmann::json modules = nlohmann::json::array();
  for (const auto& m : result.modules)
    modules.push_back({{"path", m.path}, {"class", m.class_name},
                       {"qualified_class", m.qualified_class}});
  return {{"schema", "modelexport.strategy-response/1"},
          {"assignments", std::move(assignments)},
          {"modules", std::move(modules)}};
}

struct MetadataStrategy {
  static constexpr const char* name = "metadata";
  static nlohmann::json assign(const nlohmann::json& request, const mx_strategy::Host& host) {
    auto result = mx_metadata::assign_from_metadata(request.value("graph", nlohmann::json()),
                                                    request.value("modules", nlohmann::json()));
    log_warnings(host, result.warnings);
    return response_json(result);
  }
};

}  // namespace

MX_PLUGIN_ENTRY {
  return mx_strategy::descriptor<MetadataStrategy>(
      "0.1.0",
      "dynamo exporter node metadata (name_scopes, class_hierarchy, namespace) "
      "and modelexport's own records");
}
