// The `scope` strategy plugin: the C entry point and descriptor around
// assign_from_scopes(). Only the public plugin header and nlohmann_json are
// used; buffers go back through the host's allocator and no exception
// crosses the boundary.
#include <cstddef>
#include <exception>
#include <new>
#include <string>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "modelexport/plugin.h"
#include "scope_strategy.hpp"

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
  if (out) out->error = host_copy(host, "scope strategy: " + message);
  return code;
}

int32_t handle(const mx_host_api* host, const char* text, size_t size, mx_plugin_output* out) {
  auto request = nlohmann::json::parse(text, text + size, nullptr, false);
  if (request.is_discarded() || !request.is_object())
    return fail(host, out, MX_ERR_PARSE, "request is not a JSON object");
  std::string operation = request.value("operation", "");
  if (operation != "assign")
    return fail(host, out, MX_ERR_UNSUPPORTED, "unsupported operation '" + operation + "'");
  if (!request.contains("graph") || !request.at("graph").contains("nodes"))
    return fail(host, out, MX_ERR_SCHEMA, "request has no graph.nodes");
  // Node names are file content: replace invalid UTF-8 instead of throwing.
  std::string json = mx_scope::assign_from_scopes(request).dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
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
      "scope", "0.1.0",
      "module scopes in TorchScript-exporter node names (/encoder/layer.0/attention/...)",
      create, destroy, run};
  return &descriptor;
}
