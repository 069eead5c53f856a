// modelexport.h, "Plugin registry": the mx_registry_* entry points. Each body
// runs inside guard(), so no C++ exception crosses the ABI; argument checks
// come first, work second.
#include <memory>

#include "c_api/guard.hpp"
#include "util/json_text.hpp"
#include "registry/frontend_calls.hpp"
#include "c_api/out_buffer.hpp"
#include "registry/registry.hpp"
#include "registry/registry_options.hpp"
#include "tagging/tagger.hpp"

struct mx_registry {
  explicit mx_registry(const mx::RegistryOptions& options) : registry(options) {}
  mx::Registry registry;
};

using mx::guard;
using mx::require;

extern "C" {

MX_API mx_status* mx_registry_create(const char* options_json, mx_registry** out) {
  return guard([&] {
    require(out, "out");
    *out = nullptr;
    auto options = mx::parse_registry_options(options_json);
    *out = new mx_registry(options);
  });
}

MX_API void mx_registry_release(mx_registry* registry) {
  delete registry;
}

MX_API mx_status* mx_registry_load_plugin(mx_registry* registry, const char* path) {
  return guard([&] {
    require(registry, "registry");
    require(path, "path");
    std::string reason = registry->registry.load(path);
    if (!reason.empty()) mx::fail(MX_ERR_PLUGIN, "plugin '" + std::string(path) + "' refused: " + reason);
  });
}

MX_API mx_status* mx_registry_plugins_json(const mx_registry* registry, char** out_json, size_t* out_size) {
  return guard([&] {
    require(registry, "registry");
    require(out_json, "out_json");
    mx::copy_out_text(mx::dump_text(registry->registry.listing()), out_json, out_size);
  });
}

MX_API mx_status* mx_registry_tag(const mx_registry* registry, const char* strategy, mx_model* model,
                                  const char* options_json) {
  return mx_registry_tag_with_progress(registry, strategy, model, options_json, nullptr);
}

MX_API mx_status* mx_registry_tag_with_progress(const mx_registry* registry, const char* strategy,
                                                mx_model* model, const char* options_json,
                                                const mx_progress* progress) {
  return guard([&] {
    require(registry, "registry");
    require(strategy, "strategy");
    require(model, "model");
    mx::Progress reporter(progress);
    auto options = mx::parse_options_json(options_json, "tag options");
    mx::tag_model(registry->registry, strategy, model, options, reporter);
  });
}

MX_API mx_status* mx_registry_export(const mx_registry* registry, const char* frontend,
                                     const char* model_path, const char* options_json, mx_model** out) {
  return mx_registry_export_with_progress(registry, frontend, model_path, options_json, nullptr, out);
}

MX_API mx_status* mx_registry_export_with_progress(const mx_registry* registry, const char* frontend,
                                                   const char* model_path, const char* options_json,
                                                   const mx_progress* progress, mx_model** out) {
  return guard([&] {
    require(out, "out");
    *out = nullptr;
    require(registry, "registry");
    require(model_path, "model_path");
    mx::Progress reporter(progress);
    auto options = mx::parse_options_json(options_json, "export options");
    const auto& plugin = mx::select_frontend(registry->registry, frontend ? frontend : "auto", model_path);
    *out = mx::export_model(plugin, model_path, options, reporter, registry->registry.lowering_libraries());
  });
}

MX_API mx_status* mx_registry_module_tree(const mx_registry* registry, const char* frontend,
                                          const char* model_path, char** out_json, size_t* out_size) {
  return guard([&] {
    require(registry, "registry");
    require(model_path, "model_path");
    require(out_json, "out_json");
    const auto& plugin = mx::select_frontend(registry->registry, frontend ? frontend : "auto", model_path);
    auto doc = mx::frontend_module_tree(plugin, model_path);
    mx::copy_out_text(mx::dump_text(doc), out_json, out_size);
  });
}

}  // extern "C"
