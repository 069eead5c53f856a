// The plugin registry: every library it tried to load, loaded or refused.
// Thread-safe: the plugin list is guarded by a mutex; plugins are never
// removed before the registry dies, so Plugin pointers handed out stay valid
// and runs happen outside the registry lock (each Plugin serialises itself).
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "registry/plugin.hpp"

namespace mx {

struct RegistryOptions {
  bool discover = true;                  // install dir + MODELEXPORT_PLUGIN_PATH
  std::vector<std::string> plugin_dirs;  // scanned after those
  bool graph_reader = true;              // false: strategies get JSON text (1.0 protocol)
};

class Registry {
 public:
  explicit Registry(const RegistryOptions& options);
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Loads one library. Returns "" when loaded (or when this very file is
  // already loaded), else the refusal reason, which is also recorded.
  std::string load(const std::string& path);

  // {"plugin_dirs":[...],"plugins":[...]} — see mx_registry_plugins_json.
  nlohmann::json listing() const;

  const Plugin* find(const std::string& name) const;  // nullptr if absent
  std::vector<const Plugin*> plugins() const;         // in load order

  // "a, b" (the loaded plugins of `kind`, in load order) or "none": for
  // NOT_FOUND messages.
  std::string names_of_kind(uint32_t kind) const;

  // The lowering plugins found (modelexport/lowering_plugin.h), as paths
  // in load order: export requests name them to the frontend.
  std::vector<std::string> lowering_libraries() const;

  // Whether strategies that can read the graph through the host do
  // (RegistryOptions::graph_reader).
  bool graph_reader() const { return graph_reader_; }

 private:
  struct Attempt {
    std::string path;
    std::string reason;       // empty when loaded
    const Plugin* plugin;     // null when refused
    nlohmann::json lowering;  // a lowering plugin's listing entry, else null
  };
  std::string load_locked(const std::string& path);
  std::string admit_locked(std::unique_ptr<Plugin> plugin);
  std::string admit_lowering_locked(const std::string& path, const std::string& canonical,
                                    const nlohmann::json& description);

  mutable std::mutex mutex_;
  std::vector<std::string> dirs_;
  bool graph_reader_ = true;
  std::vector<std::unique_ptr<Plugin>> plugins_;
  std::vector<std::string> loaded_files_;  // canonical paths of plugins_
  std::vector<Attempt> attempts_;
};

}  // namespace mx
