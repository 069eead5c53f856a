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

// Where the weights go (docs/plugin-protocol.md, "external_data").
enum class ExternalData {
  automatic,  // external when the model would exceed protobuf's 2 GB limit
  yes,        // always external (tensors of 1 KB and more)
  no          // always inline; a model over the limit is an error
};

struct ExportOptions {
  std::string model_path;
  std::vector<std::string> inputs;  // "name:dtype[dim,...]"
  int opset = 17;
  bool drop_builtin_tags = false;
  bool check = true;  // run onnx::checker + shape inference
  ExternalData external_data = ExternalData::automatic;
  // Directory (existing, writable) where an external-data export writes
  // model.onnx + model.onnx.data. Empty: external data is impossible, a
  // model over the limit is an error.
  std::string output_dir;
};

struct ExportResult {
  std::string onnx_bytes;      // serialized onnx::ModelProto (empty when onnx_file is set)
  std::string onnx_file;       // <output_dir>/model.onnx, weights in model.onnx.data
  std::string hierarchy_json;  // modelexport.hierarchy/1
};

ExportResult export_model(const ExportOptions& options);
// Hierarchy document with the module tree only (nodes empty).
std::string module_tree_json(const std::string& model_path, bool drop_builtin_tags);

}  // namespace mxts
