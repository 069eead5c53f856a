// Plugin ABI entry point of the "torch_export" frontend. The request
// handling every frontend shares (parsing, answers, the catch-all that keeps
// exceptions from crossing the boundary) is aten_onnx's frontend_plugin.
#include "archive.hpp"
#include "exporter.hpp"
#include "modelexport/plugin.h"
#include "mx/aten_onnx/frontend_plugin.hpp"

namespace {

const mx::aten_onnx::Frontend kTorchExport = {
    "torch_export",
    "lower",
    "nodes",
    [](const std::string& path) { return mx::torch_export::Archive::looks_like_pt2(path); },
    mx::torch_export::module_tree_json,
    mx::torch_export::export_model};

int32_t te_create(const mx_host_api* host, void** state, mx_plugin_output* error) {
  return mx::aten_onnx::create_frontend(kTorchExport, host, state, error);
}

void te_destroy(void* state) {
  mx::aten_onnx::destroy_frontend(state);
}

int32_t te_run(void* state, const char* request, size_t request_size, mx_plugin_output* out) {
  return mx::aten_onnx::run_frontend_request(kTorchExport, state, request, request_size, out);
}

}  // namespace

MX_PLUGIN_ENTRY {
  static const mx_plugin_descriptor d = {
      MX_PLUGIN_ABI_MAJOR,
      MX_PLUGIN_ABI_MINOR,
      sizeof(mx_plugin_descriptor),
      MX_PLUGIN_FRONTEND,
      MX_PLUGIN_FLAG_THREAD_SAFE,
      "torch_export",
      MXTE_VERSION,
      "torch.export programs (.pt2) to ONNX without LibTorch, every node tagged with its module",
      te_create,
      te_destroy,
      te_run};
  return &d;
}
