#include "registry/frontend_calls.hpp"

#include <cstdlib>
#include <memory>

#include <boost/filesystem.hpp>

#include "hierarchy/parse.hpp"
#include "mx/aten_onnx/opset.hpp"
#include "model/model.hpp"
#include "model/persistence.hpp"
#include "registry/plugin_progress.hpp"
#include "util/error.hpp"
#include "util/json_text.hpp"
#include "util/stale_leftovers.hpp"

namespace mx {
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
  if (!value.is_array()) fail(MX_ERR_INVALID_ARGUMENT, "\"inputs\" must be an array of input specs");
  for (const auto& spec : value)
    if (!spec.is_string()) fail(MX_ERR_INVALID_ARGUMENT, "\"inputs\" entries must be strings");
  return value;
}

int checked_opset(const json& value) {
  using mx::aten_onnx::kMinOpset, mx::aten_onnx::max_opset;
  if (!value.is_number_integer() || value.get<int64_t>() < kMinOpset || value.get<int64_t>() > max_opset())
    fail(MX_ERR_INVALID_ARGUMENT, "\"opset\" must be an integer from " + std::to_string(kMinOpset) + " to " +
                                      std::to_string(max_opset()) + ", got " + value.dump());
  return value.get<int>();
}

// A private directory (mode 0700) under $TMPDIR where a frontend writes an
// external-data export ("output_dir"); removed with everything in it when
// the export is over (the loaded model keeps its data file open by fd).
// Creation failing is not an error: the request then has no "output_dir" and
// only models that fit in protobuf's 2 GB limit can be exported.
class ScratchDir {
 public:
  // Not `wanted`: no directory (an export that writes no file needs none,
  // and a crash would leave it empty in $TMPDIR).
  explicit ScratchDir(bool wanted) {
    if (!wanted) return;
    boost::system::error_code ec;
    const auto tmp = boost::filesystem::temp_directory_path(ec);
    if (ec) return;
    remove_stale_leftovers(tmp.string(), "modelexport-export-", true);
    std::string templ = (tmp / (pid_tagged("modelexport-export-") + "XXXXXX")).string();
    if (::mkdtemp(templ.data())) path_ = templ;
  }
  ~ScratchDir() {
    if (path_.empty()) return;
    boost::system::error_code ec;
    boost::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The "onnx_file" of an answer: a plain file directly inside output_dir.
std::string answered_file(const Plugin& plugin, const json& value, const std::string& dir) {
  auto bad = [&](const std::string& why) {
    fail(MX_ERR_PLUGIN, "plugin '" + plugin.name() + "' answered badly: " + why);
  };
  if (dir.empty()) bad("\"onnx_file\" without an \"output_dir\" in the request");
  if (!value.is_string()) bad("\"onnx_file\" is not a string");
  const std::string file = value.get<std::string>();
  const std::string name = file.size() > dir.size() + 1 && file.compare(0, dir.size() + 1, dir + "/") == 0
                               ? file.substr(dir.size() + 1)
                               : std::string();
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    bad("\"onnx_file\" '" + file + "' is not a file of the output_dir '" + dir + "'");
  boost::system::error_code ec;
  if (!boost::filesystem::is_regular_file(boost::filesystem::symlink_status(file, ec)))
    bad("\"onnx_file\" '" + file + "' is not a regular file");
  return file;
}

void require_hierarchy_document(const Plugin& plugin, const json& doc) {
  if (!doc.is_object() || !doc.contains("modules") || !doc.at("modules").is_array())
    fail(MX_ERR_PLUGIN, "plugin '" + plugin.name() + "' answered badly: not a hierarchy document");
}

}  // namespace

namespace {

bool accepts(const Plugin& frontend, const std::string& model_path) {
  try {
    json answer =
        frontend.run_json({{"schema", kFrontendSchema}, {"operation", "probe"}, {"model_path", model_path}});
    return answer.is_object() && answer.value("accepts", false);
  } catch (const std::exception&) {
    return false;  // a frontend that does not know "probe" claims nothing
  }
}

}  // namespace

const Plugin& select_frontend(const Registry& registry, const std::string& name,
                              const std::string& model_path) {
  if (name.empty() || name == "auto") {
    const std::string path = absolute_model_path(model_path);
    for (const auto& plugin : registry.plugins())
      if (plugin->is_frontend() && accepts(*plugin, path)) return *plugin;
    fail(MX_ERR_UNSUPPORTED, "no frontend reads '" + model_path +
                                 "' (a torch.export .pt2 archive or a TorchScript "
                                 "file is expected; frontends: " +
                                 registry.names_of_kind(MX_PLUGIN_FRONTEND) + ")");
  }
  const Plugin* plugin = registry.find(name);
  if (!plugin || !plugin->is_frontend())
    fail(MX_ERR_NOT_FOUND, "no frontend plugin named '" + name +
                               "' (available: " + registry.names_of_kind(MX_PLUGIN_FRONTEND) + ")");
  return *plugin;
}

json export_request(const std::string& model_path, const json& options) {
  json request = {{"schema", kFrontendSchema},
                  {"operation", "export"},
                  {"model_path", absolute_model_path(model_path)},
                  {"opset", mx::aten_onnx::kDefaultOpset},
                  {"drop_builtin_tags", false},
                  // Weights stored as they are in the model file may be
                  // referred to there: the save copies them once, from the
                  // source to the output (docs/plugin-protocol.md).
                  {"weights_by_reference", true},
                  // and weights the passes transposed or scaled too, with
                  // how: the save derives them as it writes them, once.
                  {"derived_references", true}};
  for (const auto& [key, value] : options.items()) {
    if (key == "inputs") request["inputs"] = checked_inputs(value);
    else if (key == "opset") request["opset"] = checked_opset(value);
    else if (key == "drop_builtin_tags" && value.is_boolean()) request[key] = value;
    else if (key == "drop_builtin_tags")
      fail(MX_ERR_INVALID_ARGUMENT, "\"drop_builtin_tags\" must be true or false");
    else if (key == "external_data" && value.is_boolean()) request[key] = value;
    else if (key == "fused_ops" && value.is_boolean()) request[key] = value;
    else if (key == "fused_ops") fail(MX_ERR_INVALID_ARGUMENT, "\"fused_ops\" must be true or false");
    else if (key == "fold_batch_norms" && value.is_boolean()) request[key] = value;
    else if (key == "fold_batch_norms")
      fail(MX_ERR_INVALID_ARGUMENT, "\"fold_batch_norms\" must be true or false");
    else if (key == "upcast_bf16" && value.is_boolean()) request[key] = value;
    else if (key == "state_outputs" && value.is_boolean()) request[key] = value;
    else if (key == "state_outputs") fail(MX_ERR_INVALID_ARGUMENT, "\"state_outputs\" must be true or false");
    else if (key == "upcast_bf16") fail(MX_ERR_INVALID_ARGUMENT, "\"upcast_bf16\" must be true or false");
    else if (key == "external_data") fail(MX_ERR_INVALID_ARGUMENT, "\"external_data\" must be true or false");
    else fail(MX_ERR_INVALID_ARGUMENT, "unknown export option '" + key + "'");
  }
  // No "inputs": the frontend takes them from the model (a .pt2 program
  // knows its inputs) or names the ones it needs.
  if (!request.contains("inputs")) request["inputs"] = json::array();
  return request;
}

namespace {

// Runs the request with the frontend's progress routed to `progress`. A
// cancelled run is MX_ERR_CANCELLED whatever the plugin answered: an old
// frontend does not stop, a new one fails with its own message.
json run_export(const Plugin& frontend, const json& request, std::string& onnx, Progress& progress) {
  progress.report("export", "", 0, 0);
  const PluginProgressScope route(progress);
  try {
    json answer = frontend.run_json(request, &onnx);
    progress.throw_if_cancelled();
    return answer;
  } catch (const Error&) {
    progress.throw_if_cancelled();
    throw;
  }
}

}  // namespace

mx_model* export_model(const Plugin& frontend, const std::string& model_path, const json& options,
                       Progress& progress, const std::vector<std::string>& lowering_plugins) {
  json request = export_request(model_path, options);
  // The frontend opens them itself (docs/lowering-plugins.md); a frontend
  // without ops from other libraries ignores the key.
  if (!lowering_plugins.empty()) request["lowering_plugins"] = lowering_plugins;
  // "external_data": false, and the frontend writes no file.
  const auto external = request.find("external_data");
  ScratchDir scratch(external == request.end() || *external != false);
  if (!scratch.path().empty()) {
    request["output_dir"] = scratch.path();
    // An answer by reference may also name files the frontend wrote there
    // (weights it rewrote, e.g. stored transposed): one streamed copy.
    request["output_dir_references"] = true;
  }
  std::string onnx;
  json hierarchy = run_export(frontend, request, onnx, progress);
  progress.report("load", "", 0, 0);
  require_hierarchy_document(frontend, hierarchy);
  // An external-data export answers a file in output_dir instead of bytes.
  std::string onnx_file;
  if (hierarchy.contains("onnx_file")) {
    onnx_file = answered_file(frontend, hierarchy["onnx_file"], scratch.path());
    hierarchy.erase("onnx_file");
    if (!onnx.empty())
      fail(MX_ERR_PLUGIN, "plugin '" + frontend.name() + "' answered badly: both bytes and \"onnx_file\"");
  } else if (onnx.empty()) {
    fail(MX_ERR_PLUGIN, "plugin '" + frontend.name() + "' answered badly: no ONNX bytes");
  }
  std::unique_ptr<mx_model> model;
  try {  // bytes, files or document the core rejects are the frontend's fault
    if (onnx_file.empty()) {
      const bool keep_external = request.value("external_data", false);
      model = mx::model::load_exported_bytes(onnx, request.at("model_path"), scratch.path(), keep_external);
    } else {
      // Checked like any file (external locations inside the directory);
      // the data file stays open by fd, so the scratch directory can go.
      // Unless external data was asked for, the file's weights are saved as
      // borrowed ones: inline when the model fits (a frontend may write a
      // file for other reasons than size, e.g. weights it had to rewrite).
      const bool asked_external = request.value("external_data", false);
      model = mx::model::load_model_file(onnx_file, !asked_external);
      model->source_path.clear();
    }
    // As mx_model_set_hierarchy_json does: the document as text, parsed
    // and validated against the graph.
    mx::model::set_hierarchy(*model, mx::hierarchy::parse_document_text(dump_text(hierarchy), "hierarchy"),
                             "hierarchy");
  } catch (const Error& e) {
    fail(MX_ERR_PLUGIN, "plugin '" + frontend.name() + "' answered badly: " + e.what());
  }
  return model.release();
}

json frontend_module_tree(const Plugin& frontend, const std::string& model_path) {
  json request = {{"schema", kFrontendSchema},
                  {"operation", "module_tree"},
                  {"model_path", absolute_model_path(model_path)}};
  json doc = frontend.run_json(request);
  require_hierarchy_document(frontend, doc);
  return doc;
}

}  // namespace mx
