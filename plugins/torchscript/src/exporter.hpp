// Public (torch-free) interface of the TorchScript exporter core.
// Used by the plugin entry point and by tools/mxts_export.cpp.
#pragma once
#include <string>

#include "mx/aten_onnx/error.hpp"
#include "mx/aten_onnx/frontend_plugin.hpp"

namespace mx::torchscript {

// Error with an mx_code (modelexport.h) attached; where the weights go
// (docs/plugin-protocol.md, "external_data"). Both from the shared layer.
using Error = mx::aten_onnx::Error;
using ExternalData = mx::aten_onnx::ExternalData;

// The request and answer every frontend shares (aten_onnx/frontend_plugin):
// `inputs` are required here (a TorchScript file does not record its
// inputs); `progress` hears of the walk's ops.
using ExportOptions = mx::aten_onnx::ExportRequest;
using ExportResult = mx::aten_onnx::ExportAnswer;

ExportResult export_model(const ExportOptions& options);
// Hierarchy document with the module tree only (nodes empty).
std::string module_tree_json(const std::string& model_path, bool drop_builtin_tags);

}  // namespace mx::torchscript
