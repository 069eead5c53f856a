// Plugin ABI entry point of the "torchscript" frontend's LibTorch part
// (opened by the lazy entry, src/lazy/lazy_entry.cpp, on first use). The
// request handling every frontend shares (parsing, answers, the catch-all
// that keeps exceptions from crossing the boundary) is aten_onnx's
// frontend_plugin.
#include "exporter.hpp"
#include "modelexport/plugin.h"
#include "mx/aten_onnx/frontend_plugin.hpp"
#include "plugin/identity.hpp"
#include "probe.hpp"

namespace {

const mx::aten_onnx::Frontend kTorchScript = {mx::torchscript::kIdentity,
                                              "walk",
                                              "ops",
                                              mx::torchscript::looks_like_torchscript,
                                              mx::torchscript::module_tree_json,
                                              mx::torchscript::export_model};

}  // namespace

MX_PLUGIN_ENTRY {
  return mx::aten_onnx::frontend_plugin_descriptor<kTorchScript>();
}
