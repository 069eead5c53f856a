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

mx_strategy::Answer answer_of(mx::metadata::MetadataResult&& result) {
  mx_strategy::Answer answer;
  for (const auto& a : result.assignments) answer.place(a.node, a.module, "metadata");
  for (auto& m : result.modules)
    answer.modules.push_back({std::move(m.path), std::move(m.class_name), std::move(m.qualified_class)});
  return answer;
}

struct MetadataStrategy {
  static constexpr const char* name = "metadata";
  static mx_strategy::Answer answer(const mx_strategy::Request& request, const mx_strategy::Host& host) {
    auto result = mx::metadata::assign_from_metadata(request.graph, request.modules);
    log_warnings(host, result.warnings);
    return answer_of(std::move(result));
  }
};

}  // namespace

MX_PLUGIN_ENTRY {
  return mx_strategy::descriptor<MetadataStrategy>(
      "0.2.0",
      "dynamo exporter node metadata (name_scopes, class_hierarchy, namespace) "
      "and modelexport's own records");
}
