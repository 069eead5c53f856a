// Plugin ABI entry point of the "torchscript" frontend. Nothing is thrown
// across this boundary: every request is handled inside a catch-all.
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "exporter.h"
#include "modelexport/modelexport.h"
#include "modelexport/plugin.h"

namespace {

struct State {
  mx_host_api host;
};

char* dup_string(const mx_host_api& h, const std::string& s, size_t* size = nullptr) {
  char* p = static_cast<char*>(h.alloc(s.size() + 1));
  if (!p) return nullptr;
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  if (size) *size = s.size();
  return p;
}

int32_t fail(const mx_host_api& h, mx_plugin_output* out, int32_t code, const std::string& msg) {
  if (out) out->error = dup_string(h, msg);
  return code;
}

int32_t ts_create(const mx_host_api* host, void** state, mx_plugin_output* error) {
  if (!host || !state || !host->alloc) return MX_ERR_INVALID_ARGUMENT;
  if (host->abi_major != MX_PLUGIN_ABI_MAJOR) {
    if (error && host->alloc) error->error = dup_string(*host, "torchscript: host plugin ABI major mismatch");
    return MX_ERR_PLUGIN;
  }
  try {
    auto* s = new State{};
    std::memcpy(&s->host, host, std::min<size_t>(sizeof(mx_host_api), host->struct_size));
    *state = s;
    return MX_OK;
  } catch (...) {
    return MX_ERR_INTERNAL;
  }
}

void ts_destroy(void* state) { delete static_cast<State*>(state); }

int32_t ts_run(void* state, const char* request, size_t request_size, mx_plugin_output* out) {
  if (!state || !out) return MX_ERR_INVALID_ARGUMENT;
  const mx_host_api& h = static_cast<State*>(state)->host;
  try {
    nlohmann::json req = nlohmann::json::parse(std::string(request ? request : "", request ? request_size : 0));
    std::string op = req.value("operation", "");
    std::string path = req.value("model_path", "");
    if (path.empty()) return fail(h, out, MX_ERR_INVALID_ARGUMENT, "torchscript: request without model_path");
    bool drop = req.value("drop_builtin_tags", false);
    if (req.contains("options") && req["options"].is_object())
      drop = req["options"].value("drop_builtin_tags", drop);
    if (op == "probe") {  // does this frontend read the file? (docs/plugin-protocol.md)
      std::string js = std::string("{\"accepts\":") + (mxts::looks_like_torchscript(path) ? "true" : "false") + "}";
      out->json = dup_string(h, js, &out->json_size);
      return out->json ? MX_OK : MX_ERR_INTERNAL;
    }
    if (op == "module_tree") {
      std::string js = mxts::module_tree_json(path, drop);
      out->json = dup_string(h, js, &out->json_size);
      return out->json ? MX_OK : MX_ERR_INTERNAL;
    }
    if (op != "export") return fail(h, out, MX_ERR_INVALID_ARGUMENT, "torchscript: unknown operation '" + op + "'");
    mxts::ExportOptions o;
    o.model_path = path;
    o.inputs = req.value("inputs", std::vector<std::string>{});
    o.opset = req.value("opset", 17);
    o.drop_builtin_tags = drop;
    // docs/plugin-protocol.md: "external_data" true/false/absent (automatic),
    // "output_dir" where an external-data export is written (absent: old host).
    if (req.contains("external_data") && !req["external_data"].is_null()) {
      if (!req["external_data"].is_boolean())
        return fail(h, out, MX_ERR_INVALID_ARGUMENT, "torchscript: \"external_data\" must be true or false");
      o.external_data = req["external_data"].get<bool>() ? mxts::ExternalData::yes : mxts::ExternalData::no;
    }
    o.output_dir = req.value("output_dir", std::string());
    // A host that reads weights from the source file itself: refer to the
    // .pt's stored storages instead of copying them into the answer.
    o.weights_by_reference = req.value("weights_by_reference", false);
    // Plugin ABI 1.1: the walk reports to the host (an older host has no
    // progress function: nothing is reported).
    if (MX_HOST_API_HAS(&h, progress) && h.progress)
      o.progress = [&h](uint64_t done, uint64_t total) {
        return h.progress(h.host_context, "walk", "ops", done, total) == 0;
      };
    mxts::ExportResult r = mxts::export_model(o);
    if (!r.onnx_file.empty()) {
      // The model is a file: answer its path inside the hierarchy document
      // ({"onnx_file": ..., <document keys>}) and no bytes.
      std::string js = "{\"onnx_file\":" + nlohmann::json(r.onnx_file).dump() + "," + r.hierarchy_json.substr(1);
      out->json = dup_string(h, js, &out->json_size);
      return out->json ? MX_OK : fail(h, out, MX_ERR_INTERNAL, "torchscript: out of memory");
    }
    out->bytes = static_cast<uint8_t*>(h.alloc(r.onnx_bytes.size()));
    if (!out->bytes) return fail(h, out, MX_ERR_INTERNAL, "torchscript: out of memory");
    std::memcpy(out->bytes, r.onnx_bytes.data(), r.onnx_bytes.size());
    out->bytes_size = r.onnx_bytes.size();
    std::string().swap(r.onnx_bytes);
    out->json = dup_string(h, r.hierarchy_json, &out->json_size);
    return MX_OK;
  } catch (const mxts::Error& e) {
    return fail(h, out, e.code, e.what());
  } catch (const nlohmann::json::exception& e) {
    return fail(h, out, MX_ERR_PARSE, std::string("torchscript: bad request JSON: ") + e.what());
  } catch (const std::exception& e) {
    return fail(h, out, MX_ERR_INTERNAL, std::string("torchscript: ") + e.what());
  } catch (...) {
    return fail(h, out, MX_ERR_INTERNAL, "torchscript: unknown exception");
  }
}

}  // namespace

MX_PLUGIN_ENTRY {
  static const mx_plugin_descriptor d = {
      MX_PLUGIN_ABI_MAJOR, MX_PLUGIN_ABI_MINOR, sizeof(mx_plugin_descriptor), MX_PLUGIN_FRONTEND,
      MX_PLUGIN_FLAG_THREAD_SAFE, "torchscript", MXTS_VERSION,
      "TorchScript (.pt) to ONNX through LibTorch, every node tagged with its module",
      ts_create, ts_destroy, ts_run};
  return &d;
}
