// The `metadata` strategy plugin: the C entry point and descriptor around
// assign_from_metadata(). Only the public plugin header is used; buffers go
// back through the host's allocator and no exception crosses the boundary.
#include <cstddef>
#include <exception>
#include <new>
#include <string>

#include <nlohmann/json.hpp>

#include "metadata_strategy.hpp"
#include "modelexport/modelexport.h"
#include "modelexport/plugin.h"

namespace {

// Warnings beyond this many are summarised in one line, so a file whose
// every node is malformed does not flood the log.
constexpr size_t kMaxWarningLines = 20;

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
  if (out) out->error = host_copy(host, "metadata strategy: " + message);
  return code;
}

void log(const mx_host_api* host, int32_t level, const std::string& message) {
  if (host->log) host->log(host->host_context, level, message.c_str());
}

void log_warnings(const mx_host_api* host, const std::vector<std::string>& warnings) {
  for (size_t i = 0; i < warnings.size() && i < kMaxWarningLines; ++i)
    log(host, 2, "metadata strategy: " + warnings[i]);
  if (warnings.size() > kMaxWarningLines)
    log(host, 2, "metadata strategy: " + std::to_string(warnings.size() - kMaxWarningLines) +
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

int32_t handle(const mx_host_api* host, const char* text, size_t size,
               mx_plugin_output* out) {
  auto request = nlohmann::json::parse(text, text + size, nullptr, false);
  if (request.is_discarded() || !request.is_object())
    return fail(host, out, MX_ERR_PARSE, "request is not a JSON object");
  auto op = request.find("operation");
  std::string operation = op != request.end() && op->is_string() ? op->get<std::string>() : "";
  if (operation != "assign")
    return fail(host, out, MX_ERR_UNSUPPORTED, "unsupported operation '" + operation + "'");
  auto result = mx_metadata::assign_from_metadata(
      request.value("graph", nlohmann::json()), request.value("modules", nlohmann::json()));
  log_warnings(host, result.warnings);
  // Node metadata is file content: replace invalid UTF-8 instead of throwing.
  std::string json = response_json(result).dump(-1, ' ', false,
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
      "metadata", "0.1.0",
      "dynamo exporter node metadata (name_scopes, class_hierarchy, namespace) "
      "and modelexport's own records",
      create, destroy, run};
  return &descriptor;
}
