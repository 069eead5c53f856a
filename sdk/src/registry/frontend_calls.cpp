#include "registry/frontend_calls.hpp"

#include <memory>

#include <boost/filesystem.hpp>

#include "tagging/model_access.hpp"
#include "tagging/strategy_selection.hpp"
#include "util/error.hpp"

namespace modelexport {
namespace {

using json = nlohmann::json;

constexpr const char* kFrontendSchema = "modelexport.frontend-request/1";

// Frontends get an absolute path (the protocol says so): a plugin may change
// its working directory or resolve paths relative to something else.
std::string absolute_model_path(const std::string& path) {
  boost::system::error_code ec;
  if (!boost::filesystem::is_regular_file(path, ec))
    fail(MX_ERR_IO, "model file '" + path + "' does not exist or is not a file");
  return boost::filesystem::absolute(path).lexically_normal().string();
}

json checked_inputs(const json& value) {
  if (!value.is_array() || value.empty())
    fail(MX_ERR_INVALID_ARGUMENT, "\"inputs\" must be a non-empty array of input specs");
  for (const auto& spec : value)
    if (!spec.is_string()) fail(MX_ERR_INVALID_ARGUMENT, "\"inputs\" entries must be strings");
  return value;
}

int checked_opset(const json& value) {
  if (!value.is_number_integer() || value.get<int>() < 14 || value.get<int>() > 17)
    fail(MX_ERR_INVALID_ARGUMENT, "\"opset\" must be an integer from 14 to 17");
  return value.get<int>();
}

void require_hierarchy_document(const Plugin& plugin, const json& doc) {
  if (!doc.is_object() || !doc.contains("modules") || !doc.at("modules").is_array())
    fail(MX_ERR_PLUGIN, "plugin '" + plugin.name() + "' answered badly: not a hierarchy document");
}

}  // namespace

const Plugin& select_frontend(const Registry& registry, const std::string& name) {
  const Plugin* plugin = registry.find(name);
  if (!plugin || !plugin->is_frontend())
    fail(MX_ERR_NOT_FOUND, "no frontend plugin named '" + name + "' (available: " +
                               available_names(registry, MX_PLUGIN_FRONTEND) + ")");
  return *plugin;
}

json export_request(const std::string& model_path, const json& options) {
  json request = {{"schema", kFrontendSchema}, {"operation", "export"},
                  {"model_path", absolute_model_path(model_path)},
                  {"opset", 17}, {"drop_builtin_tags", false}};
  for (const auto& [key, value] : options.items()) {
    if (key == "inputs") request["inputs"] = checked_inputs(value);
    else if (key == "opset") request["opset"] = checked_opset(value);
    else if (key == "drop_builtin_tags" && value.is_boolean()) request[key] = value;
    else if (key == "drop_builtin_tags") fail(MX_ERR_INVALID_ARGUMENT, "\"drop_builtin_tags\" must be true or false");
    else fail(MX_ERR_INVALID_ARGUMENT, "unknown export option '" + key + "'");
  }
  if (!request.contains("inputs")) fail(MX_ERR_INVALID_ARGUMENT, "export option \"inputs\" is required");
  return request;
}

mx_model* export_model(const Plugin& frontend, const std::string& model_path, const json& options) {
  std::string onnx;
  json hierarchy = frontend.run_json(export_request(model_path, options), &onnx);
  require_hierarchy_document(frontend, hierarchy);
  if (onnx.empty())
    fail(MX_ERR_PLUGIN, "plugin '" + frontend.name() + "' answered badly: no ONNX bytes");
  mx_model* raw = nullptr;
  std::unique_ptr<mx_model, void (*)(mx_model*)> model(nullptr, mx_model_release);
  try {  // bytes or document the core rejects are the frontend's fault
    throw_if_error(mx_model_load_bytes(onnx.data(), onnx.size(), &raw));
    model.reset(raw);
    set_model_hierarchy(model.get(), hierarchy);
  } catch (const Error& e) {
    fail(MX_ERR_PLUGIN, "plugin '" + frontend.name() + "' answered badly: " + e.what());
  }
  return model.release();
}

json frontend_module_tree(const Plugin& frontend, const std::string& model_path) {
  json request = {{"schema", kFrontendSchema}, {"operation", "module_tree"},
                  {"model_path", absolute_model_path(model_path)}};
  json doc = frontend.run_json(request);
  require_hierarchy_document(frontend, doc);
  return doc;
}

}  // namespace modelexport
