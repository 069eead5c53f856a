// The C side of a strategy plugin, shared by the strategies in this tree:
// descriptor, create/destroy/run, request parsing, error and log reporting
// through the host (docs/plugin-protocol.md). A strategy supplies only its
// "assign" operation:
//
//   struct MyStrategy {
//     static constexpr const char* name = "my";  // also the message prefix
//     static nlohmann::json assign(const nlohmann::json& request, const mx_strategy::Host& host);
//   };
//   MX_PLUGIN_ENTRY {
//     return mx_strategy::descriptor<MyStrategy>("0.1.0", "what it reads");
//   }
//
// `assign` returns the response document; it throws mx_strategy::BadRequest
// for a request it cannot use (reported with that code) and anything else
// for a bug (reported as MX_ERR_INTERNAL): no exception crosses the C ABI.
// Header-only on purpose: plugins link neither the core nor each other.
#pragma once
#include <cstddef>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "modelexport/plugin.h"

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

 private:
  void log(int32_t level, const std::string& message) const {
    if (api_->log) api_->log(api_->host_context, level, (prefix_ + message).c_str());
  }
  const mx_host_api* api_;
  std::string prefix_;
};

template <class Strategy>
class Plugin {
 public:
  static int32_t create(const mx_host_api* api, void** state, mx_plugin_output* error) {
    if (!api || !state) return MX_ERR_INVALID_ARGUMENT;
    if (api->struct_size < offsetof(mx_host_api, host_context) + sizeof(void*) || !api->alloc ||
        !api->free)
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
    // Names and metadata are file content: replace invalid UTF-8 instead of
    // throwing.
    std::string json = Strategy::assign(request, host).dump(-1, ' ', false,
                                                            nlohmann::json::error_handler_t::replace);
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
  static const mx_plugin_descriptor d = {
      MX_PLUGIN_ABI_MAJOR, MX_PLUGIN_ABI_MINOR, sizeof(mx_plugin_descriptor),
      MX_PLUGIN_STRATEGY, MX_PLUGIN_FLAG_THREAD_SAFE,
      Strategy::name, version, description,
      Plugin<Strategy>::create, Plugin<Strategy>::destroy, Plugin<Strategy>::run};
  return &d;
}

}  // namespace mx_strategy
