// Plugin ABI entry point of the "torch_export" frontend. The request
// handling every frontend shares (parsing, answers, the catch-all that keeps
// exceptions from crossing the boundary) is aten_onnx's frontend_plugin.
#include "archive.hpp"
#include "exporter.hpp"
#include "modelexport/plugin.h"
#include "mx/aten_onnx/frontend_plugin.hpp"

namespace {

const mx::aten_onnx::Frontend kTorchExport = {
    {"torch_export", MXTE_VERSION,
     "torch.export programs (.pt2) to ONNX without LibTorch, every node tagged with its module"},
    "lower",
    "nodes",
    [](const std::string& path) { return mx::torch_export::Archive::looks_like_pt2(path); },
    mx::torch_export::module_tree_json,
    mx::torch_export::export_model};

}  // namespace

MX_PLUGIN_ENTRY {
  return mx::aten_onnx::frontend_plugin_descriptor<kTorchExport>();
}
