// Plugin ABI entry point of the "torch_export" frontend. Nothing is thrown
// across this boundary: every request is handled inside a catch-all.
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "archive.hpp"
#include "exporter.hpp"
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

int32_t te_create(const mx_host_api* host, void** state, mx_plugin_output* error) {
  if (!host || !state || !host->alloc) return MX_ERR_INVALID_ARGUMENT;
  if (host->abi_major != MX_PLUGIN_ABI_MAJOR) {
    if (error && host->alloc) error->error = dup_string(*host, "torch_export: host plugin ABI major mismatch");
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

void te_destroy(void* state) { delete static_cast<State*>(state); }

int32_t te_run(void* state, const char* request, size_t request_size, mx_plugin_output* out) {
  if (!state || !out) return MX_ERR_INVALID_ARGUMENT;
  const mx_host_api& h = static_cast<State*>(state)->host;
  try {
    nlohmann::json req = nlohmann::json::parse(std::string(request ? request : "", request ? request_size : 0));
    std::string op = req.value("operation", "");
    std::string path = req.value("model_path", "");
    if (path.empty()) return fail(h, out, MX_ERR_INVALID_ARGUMENT, "torch_export: request without model_path");
    bool drop = req.value("drop_builtin_tags", false);
    if (req.contains("options") && req["options"].is_object())
      drop = req["options"].value("drop_builtin_tags", drop);
    if (op == "probe") {  // does this frontend read the file? (docs/plugin-protocol.md)
      std::string js = std::string("{\"accepts\":") + (mxte::Archive::looks_like_pt2(path) ? "true" : "false") + "}";
      out->json = dup_string(h, js, &out->json_size);
      return out->json ? MX_OK : MX_ERR_INTERNAL;
    }
    if (op == "module_tree") {
      std::string js = mxte::module_tree_json(path, drop);
      out->json = dup_string(h, js, &out->json_size);
      return out->json ? MX_OK : MX_ERR_INTERNAL;
    }
    if (op != "export") return fail(h, out, MX_ERR_INVALID_ARGUMENT, "torch_export: unknown operation '" + op + "'");
    mxte::ExportOptions o;
    o.model_path = path;
    o.inputs = req.value("inputs", std::vector<std::string>{});
    o.opset = req.value("opset", 17);
    o.drop_builtin_tags = drop;
    // docs/plugin-protocol.md: "external_data" true/false/absent (automatic),
    // "output_dir" where an external-data export is written (absent: old host).
    if (req.contains("external_data") && !req["external_data"].is_null()) {
      if (!req["external_data"].is_boolean())
        return fail(h, out, MX_ERR_INVALID_ARGUMENT, "torch_export: \"external_data\" must be true or false");
      o.external_data = req["external_data"].get<bool>() ? mx::aten_onnx::ExternalData::yes : mx::aten_onnx::ExternalData::no;
    }
    o.output_dir = req.value("output_dir", std::string());
    // A host that reads weights from the source file itself: refer to the
    // archive's stored bytes instead of copying them into the answer.
    o.weights_by_reference = req.value("weights_by_reference", false);
    // Plugin ABI 1.1: lowering reports to the host (an older host has no
    // progress function: nothing is reported).
    if (MX_HOST_API_HAS(&h, progress) && h.progress)
      o.progress = [&h](uint64_t done, uint64_t total) {
        return h.progress(h.host_context, "lower", "nodes", done, total) == 0;
      };
    mxte::ExportResult r = mxte::export_model(o);
    if (!r.onnx_file.empty()) {
      // The model is a file: answer its path inside the hierarchy document
      // ({"onnx_file": ..., <document keys>}) and no bytes.
      std::string js = "{\"onnx_file\":" + nlohmann::json(r.onnx_file).dump() + "," + r.hierarchy_json.substr(1);
      out->json = dup_string(h, js, &out->json_size);
      return out->json ? MX_OK : fail(h, out, MX_ERR_INTERNAL, "torch_export: out of memory");
    }
    out->bytes = static_cast<uint8_t*>(h.alloc(r.onnx_bytes.size()));
    if (!out->bytes) return fail(h, out, MX_ERR_INTERNAL, "torch_export: out of memory");
    std::memcpy(out->bytes, r.onnx_bytes.data(), r.onnx_bytes.size());
    out->bytes_size = r.onnx_bytes.size();
    std::string().swap(r.onnx_bytes);
    out->json = dup_string(h, r.hierarchy_json, &out->json_size);
    return MX_OK;
  } catch (const mxte::Error& e) {
    return fail(h, out, e.code, e.what());
  } catch (const nlohmann::json::exception& e) {
    return fail(h, out, MX_ERR_PARSE, std::string("torch_export: bad request JSON: ") + e.what());
  } catch (const std::exception& e) {
    return fail(h, out, MX_ERR_INTERNAL, std::string("torch_export: ") + e.what());
  } catch (...) {
    return fail(h, out, MX_ERR_INTERNAL, "torch_export: unknown exception");
  }
}

}  // namespace

MX_PLUGIN_ENTRY {
  static const mx_plugin_descriptor d = {
      MX_PLUGIN_ABI_MAJOR, MX_PLUGIN_ABI_MINOR, sizeof(mx_plugin_descriptor), MX_PLUGIN_FRONTEND,
      MX_PLUGIN_FLAG_THREAD_SAFE, "torch_export", MXTE_VERSION,
      "torch.export programs (.pt2) to ONNX without LibTorch, every node tagged with its module",
      te_create, te_destroy, te_run};
  return &d;
}
