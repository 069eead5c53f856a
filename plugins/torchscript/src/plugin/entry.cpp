// Plugin ABI entry point of the "torchscript" frontend's LibTorch part
// (opened by the lazy entry, src/lazy/lazy_entry.cpp, on first use). The
// request handling every frontend shares (parsing, answers, the catch-all
// that keeps exceptions from crossing the boundary) is aten_onnx's
// frontend_plugin.
#include "exporter.hpp"
#include "modelexport/plugin.h"
#include "mx/aten_onnx/frontend_plugin.hpp"

namespace {

const mx::aten_onnx::Frontend kTorchScript = {"torchscript",
                                              "walk",
                                              "ops",
                                              mx::torchscript::looks_like_torchscript,
                                              mx::torchscript::module_tree_json,
                                              mx::torchscript::export_model};

int32_t ts_create(const mx_host_api* host, void** state, mx_plugin_output* error) {
  return mx::aten_onnx::create_frontend(kTorchScript, host, state, error);
}

void ts_destroy(void* state) {
  mx::aten_onnx::destroy_frontend(state);
}

int32_t ts_run(void* state, const char* request, size_t request_size, mx_plugin_output* out) {
  return mx::aten_onnx::run_frontend_request(kTorchScript, state, request, request_size, out);
}

}  // namespace

MX_PLUGIN_ENTRY {
  static const mx_plugin_descriptor d = {
      MX_PLUGIN_ABI_MAJOR,
      MX_PLUGIN_ABI_MINOR,
      sizeof(mx_plugin_descriptor),
      MX_PLUGIN_FRONTEND,
      MX_PLUGIN_FLAG_THREAD_SAFE,
      "torchscript",
      MXTS_VERSION,
      "TorchScript (.pt) to ONNX through LibTorch, every node tagged with its module",
      ts_create,
      ts_destroy,
      ts_run};
  return &d;
}
