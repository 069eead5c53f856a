// Asking one strategy plugin for its answer, the way it reads the graph:
// through the host (plugin ABI 1.2, MX_PLUGIN_FLAG_GRAPH_READER: a request
// without "graph" and "modules", the StrategyGraph reader, answers into a
// sink) or as the
// JSON request of docs/plugin-protocol.md (1.0/1.1 plugins, and every
// plugin when the registry was created with "graph_reader": false). Both
// requests are written at most once per tag, when a plugin first needs one.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include "mx/onnx_proto.hpp"

#include "registry/registry.hpp"
#include "tagging/strategy_graph.hpp"
#include "tagging/strategy_response.hpp"

namespace mx {

class StrategyCall {
 public:
  // `modules` (the supplied hierarchy's JSON, or []), `supplied` (the same
  // modules parsed and checked, or null) and `options` must outlive the
  // call, as must `proto` and `view`.
  StrategyCall(const onnx::ModelProto& proto, const GraphView& view, const nlohmann::json& modules,
               const ModuleTree* supplied, const nlohmann::json& options);

  // The plugin's checked answer; MX_ERR_PLUGIN (or the plugin's own code)
  // naming the plugin when it fails or answers out of contract.
  StrategyAnswer ask(const Registry& registry, const Plugin& plugin);
  // Whether `plugin` gets the JSON request (graph and supplied modules as
  // JSON text) rather than the reader.
  static bool sends_json(const Registry& registry, const Plugin& plugin);

 private:
  const std::string& json_request();    // with "graph"
  const std::string& reader_request();  // without "graph" and "modules"

  const onnx::ModelProto& proto_;
  const GraphView& view_;
  const nlohmann::json& modules_;
  const nlohmann::json& options_;
  StrategyGraph graph_;
  std::optional<std::string> json_request_, reader_request_;
};

}  // namespace mx
