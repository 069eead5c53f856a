// Public (torch-free) interface of the TorchScript exporter core.
// Used by the plugin entry point and by tools/mxts_export.cpp.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace mxts {

// Error with an mx_code (modelexport.h) attached.
struct Error : std::runtime_error {
  int code;
  Error(int c, const std::string& msg) : std::runtime_error(msg), code(c) {}
};

struct ExportOptions {
  std::string model_path;
  std::vector<std::string> inputs;  // "name:dtype[dim,...]"
  int opset = 17;
  bool drop_builtin_tags = false;
  bool check = true;  // run onnx::checker + shape inference
};

struct ExportResult {
  std::string onnx_bytes;      // serialized onnx::ModelProto
  std::string hierarchy_json;  // modelexport.hierarchy/1
};

ExportResult export_model(const ExportOptions& options);
// Hierarchy document with the module tree only (nodes empty).
std::string module_tree_json(const std::string& model_path, bool drop_builtin_tags);

}  // namespace mxts
