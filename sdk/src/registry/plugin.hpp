// One loaded plugin library: the open library, its validated descriptor and
// the state its create() returned. Destroying a Plugin calls the plugin's
// destroy() and then unloads the library, in that order.
#pragma once
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include <boost/dll/shared_library.hpp>
#include <nlohmann/json.hpp>

#include "modelexport/plugin.h"

namespace mx {

// Raised while opening/starting a plugin; the registry records it as a
// refusal (never an error of the caller's operation unless loaded explicitly).
class PluginRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Raised by Plugin::open for a library that is a lowering plugin
// (modelexport/lowering_plugin.h) rather than an mx_plugin: not a refusal.
// The registry lists it with `description` and names its path to
// frontends in export requests ("lowering_plugins"); the frontend opens it.
class LoweringLibrary : public std::runtime_error {
 public:
  explicit LoweringLibrary(nlohmann::json description)
      : std::runtime_error("a lowering plugin"), description(std::move(description)) {}
  nlohmann::json description;
};

// What a successful run() produced.
struct PluginReply {
  std::string json;
  std::string bytes;
};

class Plugin {
 public:
  // Loads the library and validates its descriptor. Throws PluginRefused,
  // or LoweringLibrary for a valid lowering plugin (then unloaded again).
  static std::unique_ptr<Plugin> open(const std::string& path);
  ~Plugin();
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;

  // Calls the plugin's create(). Separate from open() so the registry can
  // refuse a duplicate name before any plugin code beyond the entry runs.
  void start();

  // Runs one request. Non-zero → Error(MX_ERR_PLUGIN, "plugin 'x' failed: …").
  // Serialised unless the plugin declared MX_PLUGIN_FLAG_THREAD_SAFE.
  PluginReply run(const std::string& request) const;
  // run() with JSON in and out; malformed JSON from the plugin is
  // MX_ERR_PLUGIN naming the plugin and the parse error.
  nlohmann::json run_json(const nlohmann::json& request, std::string* bytes = nullptr) const;
  // The same with the request already written as JSON text.
  nlohmann::json run_json_text(const std::string& request, std::string* bytes = nullptr) const;

  // ABI 1.2 strategies: one "assign" run whose request has no "graph"; the
  // plugin reads `graph` and answers into `answer` through the host table
  // (registry/strategy_route.hpp). Errors as run().
  void run_with_reader(const std::string& request, const mx_graph_reader& graph,
                       const mx_strategy_answer& answer) const;
  // Declared MX_PLUGIN_FLAG_GRAPH_READER (meaningful from ABI 1.2 on).
  bool reads_graph() const;

  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }
  uint32_t kind() const { return descriptor_->kind; }
  bool is_frontend() const { return kind() == MX_PLUGIN_FRONTEND; }
  bool is_strategy() const { return kind() == MX_PLUGIN_STRATEGY; }
  nlohmann::json describe() const;  // one entry of mx_registry_plugins_json

 private:
  Plugin(boost::dll::shared_library library, const mx_plugin_descriptor* d, std::string path);
  PluginReply call_run(const std::string& request) const;

  // Declared first so it is destroyed last: the code of destroy() and the
  // descriptor live inside the library.
  boost::dll::shared_library library_;
  const mx_plugin_descriptor* descriptor_;
  std::string path_, name_, version_, description_;
  void* state_ = nullptr;
  bool started_ = false;
  mutable std::mutex run_mutex_;
};

}  // namespace mx
