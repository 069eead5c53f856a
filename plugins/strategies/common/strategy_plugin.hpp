// The C side of a strategy plugin, shared by the strategies in this tree:
// descriptor, create/destroy/run, request parsing, error and log reporting
// through the host (docs/plugin-protocol.md). A strategy supplies only its
// "answer" operation, written once against mx_strategy::Graph:
//
//   struct MyStrategy {
//     static constexpr const char* name = "my";  // also the message prefix
//     static mx_strategy::Answer answer(const mx_strategy::Request& request,
//                                       const mx_strategy::Host& host);
//   };
//   MX_PLUGIN_ENTRY {
//     return mx_strategy::descriptor<MyStrategy>("0.1.0", "what it reads");
//   }
//
// The plugin declares MX_PLUGIN_FLAG_GRAPH_READER (plugin ABI 1.2): when
// the host offers its reader, the graph is read through it and the answers
// go to the host one by one; otherwise (the host was told "graph_reader":
// false, or a tool sends JSON) the request's "graph" is read and the
// answer written as JSON. `answer` throws mx_strategy::BadRequest for a
// request it cannot use (reported with that code) and anything else for a
// bug (reported as MX_ERR_INTERNAL): no exception crosses the C ABI.
// Header-only on purpose: plugins link neither the core nor each other.
#pragma once
#include <cstddef>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "mx/common/string_blocks.hpp"
#include "modelexport/plugin.h"
#include "strategy_graph.hpp"

namespace mx_strategy {

// A request the strategy cannot work with (MX_ERR_SCHEMA and the like).
struct BadRequest : std::runtime_error {
  BadRequest(int32_t code, const std::string& message) : std::runtime_error(message), code(code) {}
  int32_t code;
};

// The host's services as a strategy uses them; messages get the
// "<name> strategy: " prefix.
class Host {
 public:
  Host(const mx_host_api* api, const char* name) : api_(api), prefix_(std::string(name) + " strategy: ") {}
  void info(const std::string& message) const { log(0, message); }
  void warn(const std::string& message) const { log(2, message); }
  // A NUL-terminated copy in the host's allocator (the host frees it); null
  // when the allocation fails.
  char* copy(const std::string& text) const {
    auto* buffer = static_cast<char*>(api_->alloc(text.size() + 1));
    if (buffer) text.copy(buffer, text.size()), buffer[text.size()] = '\0';
    return buffer;
  }
  int32_t fail(mx_plugin_output* out, int32_t code, const std::string& message) const {
    if (out) out->error = copy(prefix_ + message);
    return code;
  }
  // The host's reader and answer sink for the current run (plugin ABI
  // 1.2), or null: an older host, or the graph sent as JSON.
  const mx_graph_reader* graph_reader() const {
    return MX_HOST_API_HAS(api_, answer) && api_->graph ? api_->graph(api_->host_context) : nullptr;
  }
  const mx_strategy_answer* answer_sink() const {
    return MX_HOST_API_HAS(api_, answer) && api_->answer ? api_->answer(api_->host_context) : nullptr;
  }

 private:
  void log(int32_t level, const std::string& message) const {
    if (api_->log) api_->log(api_->host_context, level, (prefix_ + message).c_str());
  }
  const mx_host_api* api_;
  std::string prefix_;
};

// What a strategy is asked: the graph, the supplied hierarchy's modules
// (none when the user supplied no hierarchy) and the request's "options"
// (the user's strategy_options, or {}).
struct Request {
  const Graph& graph;
  const Modules& modules;
  const nlohmann::json& options;
};

// What a strategy answers (docs/plugin-protocol.md, "assign" response).
struct Answer {
  struct Placement {
    size_t node;
    std::string_view module;  // in the answer's own copy (place())
    const char* evidence;     // "direct", "scope", "metadata" or "parameter"
  };
  struct ModuleClass {
    std::string path, class_name, qualified_class;  // qualified: JSON only
  };
  std::vector<Placement> assignments;
  std::vector<ModuleClass> modules;  // classes learned; may stay empty

  // Places `node` in `module`, which the answer copies. Neighbouring nodes
  // mostly share their module, so a module equal to the previous
  // placement's shares its copy: a std::string per placement was 200,000
  // allocations at 200,000 nodes, all freed once the answer was sent.
  void place(size_t node, std::string_view module, const char* evidence) {
    if (assignments.empty() || assignments.back().module != module) module = text_.store(module);
    else module = assignments.back().module;
    assignments.push_back({node, module, evidence});
  }

 private:
  mx::common::StringBlocks text_;
};

inline nlohmann::json answer_json(const Answer& answer) {
  nlohmann::json assignments = nlohmann::json::array();
  for (const auto& a : answer.assignments)
    assignments.push_back({{"node", a.node}, {"module", std::string(a.module)}, {"evidence", a.evidence}});
  nlohmann::json response = {{"schema", "modelexport.strategy-response/1"},
                             {"assignments", std::move(assignments)}};
  if (answer.modules.empty()) return response;
  nlohmann::json modules = nlohmann::json::array();
  for (const auto& m : answer.modules) {
    nlohmann::json entry = {{"path", m.path}, {"class", m.class_name}};
    if (!m.qualified_class.empty()) entry["qualified_class"] = m.qualified_class;
    modules.push_back(std::move(entry));
  }
  response["modules"] = std::move(modules);
  return response;
}

// Hands `answer` to the host's sink; the first refused entry's code (the
// host keeps the reason and reports it).
inline int32_t send_answer(const Answer& answer, const mx_strategy_answer& sink) {
  for (const auto& a : answer.assignments)
    if (int32_t code = sink.assign(sink.answer, a.node, a.module.data(), a.module.size(), a.evidence))
      return code;
  for (const auto& m : answer.modules)
    if (int32_t code = sink.module_class(sink.answer, m.path.data(), m.path.size(), m.class_name.data(),
                                         m.class_name.size()))
      return code;
  return MX_OK;
}

template <class Strategy>
class Plugin {
 public:
  static int32_t create(const mx_host_api* api, void** state, mx_plugin_output* error) {
    if (!api || !state) return MX_ERR_INVALID_ARGUMENT;
    if (api->struct_size < offsetof(mx_host_api, host_context) + sizeof(void*) || !api->alloc || !api->free)
      return MX_ERR_PLUGIN;  // no allocator: cannot even report why
    *state = new (std::nothrow) Host(api, Strategy::name);
    return *state ? MX_OK : Host(api, Strategy::name).fail(error, MX_ERR_INTERNAL, "out of memory");
  }

  static void destroy(void* state) { delete static_cast<Host*>(state); }

  static int32_t run(void* state, const char* request, size_t size, mx_plugin_output* out) {
    if (!state || !request || !out) return MX_ERR_INVALID_ARGUMENT;
    const Host& host = *static_cast<Host*>(state);
    try {
      return handle(host, request, size, out);
    } catch (const BadRequest& e) {
      return host.fail(out, e.code, e.what());
    } catch (const std::exception& e) {
      return host.fail(out, MX_ERR_INTERNAL, e.what());
    } catch (...) {
      return host.fail(out, MX_ERR_INTERNAL, "unknown exception");
    }
  }

 private:
  static int32_t handle(const Host& host, const char* text, size_t size, mx_plugin_output* out) {
    auto request = nlohmann::json::parse(text, text + size, nullptr, false);
    if (request.is_discarded() || !request.is_object())
      return host.fail(out, MX_ERR_PARSE, "request is not a JSON object");
    auto op = request.find("operation");
    std::string operation = op != request.end() && op->is_string() ? op->get<std::string>() : "";
    if (operation != "assign")
      return host.fail(out, MX_ERR_UNSUPPORTED, "unsupported operation '" + operation + "'");
    static const nlohmann::json kNoModules = nlohmann::json::array();
    static const nlohmann::json kNoOptions = nlohmann::json::object();
    auto modules = request.find("modules");
    auto options = request.find("options");
    const nlohmann::json& module_list = modules != request.end() ? *modules : kNoModules;
    const nlohmann::json& option_map = options != request.end() ? *options : kNoOptions;
    const mx_graph_reader* reader = host.graph_reader();
    const mx_strategy_answer* sink = host.answer_sink();
    if (reader && sink) {
      ReaderGraph graph(*reader);
      ReaderModules supplied(*reader);
      return send_answer(Strategy::answer(Request{graph, supplied, option_map}, host), *sink);
    }
    static const nlohmann::json kNoGraph;
    auto graph_json = request.find("graph");
    JsonGraph graph(graph_json != request.end() ? *graph_json : kNoGraph);
    if (!graph.has_nodes()) return host.fail(out, MX_ERR_SCHEMA, "request has no graph.nodes array");
    // Problems decoding the graph view are the sender's bug, not the
    // file's; they are reported once each.
    for (const auto& p : graph.problems()) host.warn(p);
    // Names and metadata are file content: replace invalid UTF-8 instead of
    // throwing.
    JsonModules supplied(module_list);
    std::string json = answer_json(Strategy::answer(Request{graph, supplied, option_map}, host))
                           .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out->json = host.copy(json);
    if (!out->json) return host.fail(out, MX_ERR_INTERNAL, "out of memory");
    out->json_size = json.size();
    return MX_OK;
  }
};

// The descriptor MX_PLUGIN_ENTRY returns; `version` and `description` must
// be string literals (the descriptor keeps the pointers).
template <class Strategy>
const mx_plugin_descriptor* descriptor(const char* version, const char* description) {
  static const mx_plugin_descriptor d = {MX_PLUGIN_ABI_MAJOR,
                                         MX_PLUGIN_ABI_MINOR,
                                         sizeof(mx_plugin_descriptor),
                                         MX_PLUGIN_STRATEGY,
                                         MX_PLUGIN_FLAG_THREAD_SAFE | MX_PLUGIN_FLAG_GRAPH_READER,
                                         Strategy::name,
                                         version,
                                         description,
                                         Plugin<Strategy>::create,
                                         Plugin<Strategy>::destroy,
                                         Plugin<Strategy>::run};
  return &d;
}

}  // namespace mx_strategy
