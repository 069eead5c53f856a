#include "mx/aten_onnx/frontend_plugin.hpp"

#include <cstring>
#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "mx/aten_onnx/error.hpp"

namespace mx::aten_onnx {
namespace {

struct State {
  mx_host_api host;  // copied: the host's table outlives no call of ours
};

int32_t fail(const mx_host_api& h, mx_plugin_output* out, int32_t code, const std::string& message) {
  out->error = host_text(h, message);
  return code;
}

int32_t answer_json(const mx_host_api& h, mx_plugin_output* out, const std::string& json) {
  out->json = host_text(h, json, &out->json_size);
  return out->json ? MX_OK : MX_ERR_INTERNAL;
}

// The export options of the request (docs/plugin-protocol.md, "export").
ExportRequest export_request(const Frontend& f, const nlohmann::json& req, const mx_host_api& h,
                             bool drop_builtin_tags) {
  ExportRequest r;
  r.model_path = req.value("model_path", "");
  r.inputs = req.value("inputs", std::vector<std::string>{});
  r.opset = req.value("opset", kDefaultOpset);
  r.drop_builtin_tags = drop_builtin_tags;
  if (req.contains("fused_ops") && !req["fused_ops"].is_boolean())
    throw Error(MX_ERR_INVALID_ARGUMENT,
                std::string(f.identity.name) + ": \"fused_ops\" must be true or false");
  r.fused_ops = req.value("fused_ops", true);
  if (req.contains("fold_batch_norms") && !req["fold_batch_norms"].is_boolean())
    throw Error(MX_ERR_INVALID_ARGUMENT,
                std::string(f.identity.name) + ": \"fold_batch_norms\" must be true or false");
  r.fold_batch_norms = req.value("fold_batch_norms", true);
  if (req.contains("upcast_bf16") && !req["upcast_bf16"].is_boolean())
    throw Error(MX_ERR_INVALID_ARGUMENT,
                std::string(f.identity.name) + ": \"upcast_bf16\" must be true or false");
  r.upcast_bf16 = req.value("upcast_bf16", false);
  if (req.contains("state_outputs") && !req["state_outputs"].is_boolean())
    throw Error(MX_ERR_INVALID_ARGUMENT,
                std::string(f.identity.name) + ": \"state_outputs\" must be true or false");
  r.state_outputs = req.value("state_outputs", true);
  // "external_data": true / false / absent (automatic).
  if (req.contains("external_data") && !req["external_data"].is_null()) {
    if (!req["external_data"].is_boolean())
      throw Error(MX_ERR_INVALID_ARGUMENT,
                  std::string(f.identity.name) + ": \"external_data\" must be true or false");
    r.external_data = req["external_data"].get<bool>() ? ExternalData::yes : ExternalData::no;
  }
  r.output_dir = req.value("output_dir", std::string());
  r.weights_by_reference = req.value("weights_by_reference", false);
  r.output_dir_references = req.value("output_dir_references", false);
  r.derived_references = req.value("derived_references", false);
  if (req.contains("lowering_plugins")) {
    const auto& list = req["lowering_plugins"];
    if (!list.is_array())
      throw Error(MX_ERR_INVALID_ARGUMENT,
                  std::string(f.identity.name) + ": \"lowering_plugins\" must be an array of paths");
    for (const auto& path : list) {
      if (!path.is_string())
        throw Error(MX_ERR_INVALID_ARGUMENT,
                    std::string(f.identity.name) + ": \"lowering_plugins\" entries must be strings");
      r.lowering_plugins.push_back(path.get<std::string>());
    }
  }
  // Plugin ABI 1.1: the export reports to the host (an older host has no
  // progress function: nothing is reported).
  if (MX_HOST_API_HAS(&h, progress) && h.progress) {
    const char* stage = f.progress_stage;
    const char* unit = f.progress_unit;
    r.progress = [&h, stage, unit](uint64_t done, uint64_t total) {
      return h.progress(h.host_context, stage, unit, done, total) == 0;
    };
  }
  if (h.log) {
    constexpr int32_t kWarning = 2;  // the host's log levels: debug, info, warning, error
    r.warn = [&h](const std::string& message) { h.log(h.host_context, kWarning, message.c_str()); };
  }
  return r;
}

// The answer of an export: a file the frontend wrote ({"onnx_file": ...,
// <document keys>}, no bytes) or the model's bytes and the document.
int32_t answer_export(const Frontend& f, const mx_host_api& h, mx_plugin_output* out, ExportAnswer& a) {
  if (!a.onnx_file.empty()) {
    std::string js =
        "{\"onnx_file\":" + nlohmann::json(a.onnx_file).dump() + "," + a.hierarchy_json.substr(1);
    return answer_json(h, out, js) == MX_OK
               ? MX_OK
               : fail(h, out, MX_ERR_INTERNAL, std::string(f.identity.name) + ": out of memory");
  }
  out->bytes = static_cast<uint8_t*>(h.alloc(a.onnx_bytes.size()));
  if (!out->bytes) return fail(h, out, MX_ERR_INTERNAL, std::string(f.identity.name) + ": out of memory");
  std::memcpy(out->bytes, a.onnx_bytes.data(), a.onnx_bytes.size());
  out->bytes_size = a.onnx_bytes.size();
  std::string().swap(a.onnx_bytes);  // the model's bytes exist twice only for the copy
  return answer_json(h, out, a.hierarchy_json);
}

int32_t handle(const Frontend& f, const mx_host_api& h, const char* request, size_t request_size,
               mx_plugin_output* out) {
  nlohmann::json req = nlohmann::json::parse(std::string(request ? request : "", request ? request_size : 0));
  std::string op = req.value("operation", "");
  std::string path = req.value("model_path", "");
  if (path.empty())
    return fail(h, out, MX_ERR_INVALID_ARGUMENT,
                std::string(f.identity.name) + ": request without model_path");
  bool drop = req.value("drop_builtin_tags", false);
  if (req.contains("options") && req["options"].is_object())
    drop = req["options"].value("drop_builtin_tags", drop);
  if (op == "probe")  // does this frontend read the file?
    return answer_json(h, out, std::string("{\"accepts\":") + (f.accepts(path) ? "true" : "false") + "}");
  if (op == "module_tree") return answer_json(h, out, f.module_tree_json(path, drop));
  if (op != "export")
    return fail(h, out, MX_ERR_INVALID_ARGUMENT,
                std::string(f.identity.name) + ": unknown operation '" + op + "'");
  ExportAnswer a = f.export_model(export_request(f, req, h, drop));
  return answer_export(f, h, out, a);
}

}  // namespace

AssemblyOptions assembly_options(const ExportRequest& request, const std::string& graph_name,
                                 const char* producer_version) {
  AssemblyOptions assembly;
  assembly.opset = request.opset;
  assembly.graph_name = graph_name;
  assembly.producer_version = producer_version;
  assembly.check = request.check;
  assembly.external_data = request.external_data;
  assembly.output_dir = request.output_dir;
  assembly.output_dir_references = request.output_dir_references;
  assembly.derived_references = request.derived_references;
  return assembly;
}

int32_t create_frontend(const Frontend& f, const mx_host_api* host, void** state, mx_plugin_output* error) {
  if (int32_t rc = check_create(f.identity.name, host, state, error); rc != MX_OK) return rc;
  try {
    *state = new State{copy_host_api(*host)};
    return MX_OK;
  } catch (...) {
    return MX_ERR_INTERNAL;
  }
}

void destroy_frontend(void* state) {
  delete static_cast<State*>(state);
}

int32_t run_frontend_request(const Frontend& f, void* state, const char* request, size_t request_size,
                             mx_plugin_output* out) {
  if (!state || !out) return MX_ERR_INVALID_ARGUMENT;
  const mx_host_api& h = static_cast<State*>(state)->host;
  const std::string name = f.identity.name;
  try {
    return handle(f, h, request, request_size, out);
  } catch (const Error& e) {
    return fail(h, out, e.code, e.what());
  } catch (const nlohmann::json::exception& e) {
    return fail(h, out, MX_ERR_PARSE, name + ": bad request JSON: " + e.what());
  } catch (const std::exception& e) {
    return fail(h, out, MX_ERR_INTERNAL, name + ": " + e.what());
  } catch (...) {
    return fail(h, out, MX_ERR_INTERNAL, name + ": unknown exception");
  }
}

}  // namespace mx::aten_onnx
