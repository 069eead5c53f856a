// The `usage` strategy plugin: the C entry point and descriptor around
// assign_by_usage(). Only the public plugin header is used; buffers go
// back through the host's allocator and no exception crosses the boundary.
#include <cstddef>
#include <exception>
#include <new>
#include <string>

#include <nlohmann/json.hpp>

#include "graph_view.hpp"
#include "usage_strategy.hpp"
#include "modelexport/modelexport.h"
#include "modelexport/plugin.h"

namespace {

struct State {
  const mx_host_api* host;
};

char* host_copy(const mx_host_api* host, const std::string& text) {
  auto* buffer = static_cast<char*>(host->alloc(text.size() + 1));
  if (buffer) text.copy(buffer, text.size()), buffer[text.size()] = '\0';
  return buffer;
}

int32_t fail(const mx_host_api* host, mx_plugin_output* out, int32_t code,
             const std::string& message) {
  if (out) out->error = host_copy(host, "usage strategy: " + message);
  return code;
}

void log(const mx_host_api* host, int32_t level, const std::string& message) {
  if (host->log) host->log(host->host_context, level, message.c_str());
}

// Problems decoding the graph view are the host's bug, not the file's;
// they are reported once each.
void log_problems(const mx_host_api* host, const std::vector<std::string>& problems) {
  for (const auto& p : problems) log(host, 2, "usage strategy: " + p);
}

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

int32_t handle(const mx_host_api* host, const char* text, size_t size,
               mx_plugin_output* out) {
  auto request = nlohmann::json::parse(text, text + size, nullptr, false);
  if (request.is_discarded() || !request.is_object())
    return fail(host, out, MX_ERR_PARSE, "request is not a JSON object");
  auto op = request.find("operation");
  std::string operation = op != request.end() && op->is_string() ? op->get<std::string>() : "";
  if (operation != "assign")
    return fail(host, out, MX_ERR_UNSUPPORTED, "unsupported operation '" + operation + "'");
  std::vector<std::string> problems;
  auto graph = mx_usage::graph_from_json(request.value("graph", nlohmann::json()), problems);
  log_problems(host, problems);
  auto options = options_from(request.value("options", nlohmann::json()));
  options.outlines = mx_usage::ModuleOutlines(request.value("modules", nlohmann::json()));
  auto assignments = mx_usage::assign_by_usage(graph, options);
  log(host, 0, "usage strategy: " + std::to_string(assignments.size()) + " of " +
                   std::to_string(graph.nodes.size()) + " nodes consume named parameters");
  // Names are file content: replace invalid UTF-8 instead of throwing.
  std::string json = response_json(assignments).dump(-1, ' ', false,
                                                nlohmann::json::error_handler_t::replace);
  out->json = host_copy(host, json);
  if (!out->json) return fail(host, out, MX_ERR_INTERNAL, "out of memory");
  out->json_size = json.size();
  return MX_OK;
}

int32_t create(const mx_host_api* host, void** state, mx_plugin_output* error) {
  if (!host || !state) return MX_ERR_INVALID_ARGUMENT;
  if (host->struct_size < offsetof(mx_host_api, host_context) + sizeof(void*) ||
      !host->alloc || !host->free)
    return MX_ERR_PLUGIN;  // no allocator: cannot even report why
  *state = new (std::nothrow) State{host};
  return *state ? MX_OK : fail(host, error, MX_ERR_INTERNAL, "out of memory");
}

void destroy(void* state) { delete static_cast<State*>(state); }

int32_t run(void* state, const char* request, size_t size, mx_plugin_output* out) {
  if (!state || !request || !out) return MX_ERR_INVALID_ARGUMENT;
  const mx_host_api* host = static_cast<State*>(state)->host;
  try {
    return handle(host, request, size, out);
  } catch (const std::exception& e) {
    return fail(host, out, MX_ERR_INTERNAL, e.what());
  } catch (...) {
    return fail(host, out, MX_ERR_INTERNAL, "unknown exception");
  }
}

}  // namespace

MX_PLUGIN_ENTRY {
  static const mx_plugin_descriptor descriptor = {
      MX_PLUGIN_ABI_MAJOR, MX_PLUGIN_ABI_MINOR, sizeof(mx_plugin_descriptor),
      MX_PLUGIN_STRATEGY, MX_PLUGIN_FLAG_THREAD_SAFE,
      "usage", "0.1.0",
      "parameter usage: a node belongs to the module whose named parameters "
      "it consumes (directly or through Transpose/Cast/DequantizeLinear chains)",
      create, destroy, run};
  return &descriptor;
}
