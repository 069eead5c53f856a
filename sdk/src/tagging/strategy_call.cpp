#include "tagging/strategy_call.hpp"

#include "tagging/strategy_answer_sink.hpp"
#include "util/error.hpp"
#include "util/json_text.hpp"

namespace mx {
namespace {

// The strategy request (docs/plugin-protocol.md): {"graph", "modules",
// "operation", "options", "schema"}, written directly as text, keys in the
// order nlohmann::json dumps them. A graph reader's has neither "graph" nor
// "modules" (it reads both through the host): null `proto` and `modules`.
std::string request_text(const onnx::ModelProto* proto, const nlohmann::json* modules,
                         const nlohmann::json& options) {
  std::string text;
  const size_t nodes = proto ? static_cast<size_t>(proto->graph().node_size()) : 0;
  text.reserve(nodes * 160 + 1024);
  text += '{';
  if (proto) {
    text += "\"graph\":";
    append_strategy_graph_text(*proto, text);
    text += ',';
  }
  if (modules) {
    text += "\"modules\":";
    text += dump_text(*modules);
    text += ',';
  }
  text += "\"operation\":\"assign\",\"options\":";
  text += dump_text(options);
  text += ",\"schema\":\"modelexport.strategy-request/1\"}";
  return text;
}

}  // namespace

StrategyCall::StrategyCall(const onnx::ModelProto& proto, const GraphView& view,
                           const nlohmann::json& modules, const ModuleTree* supplied,
                           const nlohmann::json& options)
    : proto_(proto), view_(view), modules_(modules), options_(options), graph_(proto, view, supplied) {}

const std::string& StrategyCall::json_request() {
  if (!json_request_) json_request_ = request_text(&proto_, &modules_, options_);
  return *json_request_;
}

const std::string& StrategyCall::reader_request() {
  if (!reader_request_) reader_request_ = request_text(nullptr, nullptr, options_);
  return *reader_request_;
}

bool StrategyCall::sends_json(const Registry& registry, const Plugin& plugin) {
  return !registry.graph_reader() || !plugin.reads_graph();
}

StrategyAnswer StrategyCall::ask(const Registry& registry, const Plugin& plugin) {
  if (sends_json(registry, plugin))
    return parse_strategy_response(plugin.name(), plugin.run_json_text(json_request()), view_.nodes.size());
  StrategyAnswerSink sink(view_.nodes.size());
  auto refused = [&] {
    fail(MX_ERR_PLUGIN, "plugin '" + plugin.name() + "' answered badly: " + sink.refusal());
  };
  try {
    plugin.run_with_reader(reader_request(), graph_.reader(), sink.table());
  } catch (const Error&) {
    // A plugin that stops on a refused answer fails its run: the refusal is
    // the reason worth reporting.
    if (!sink.refusal().empty()) refused();
    throw;
  }
  if (!sink.refusal().empty()) refused();
  return sink.take();
}

}  // namespace mx
