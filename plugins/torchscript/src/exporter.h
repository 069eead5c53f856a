// Public (torch-free) interface of the TorchScript exporter core.
// Used by the plugin entry point and by tools/mxts_export.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mx/aten_onnx/error.hpp"
#include "mx/aten_onnx/model_assembly.hpp"

namespace mxts {

// Error with an mx_code (modelexport.h) attached; where the weights go
// (docs/plugin-protocol.md, "external_data"). Both from the shared layer.
using Error = mx::aten_onnx::Error;
using ExternalData = mx::aten_onnx::ExternalData;

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
  // The host takes weights by reference to model_path (protocol
  // "weights_by_reference"): parameters stored as they are in the .pt are
  // answered as (offset, length) in it, not copied (source_offsets.h).
  bool weights_by_reference = false;
  // Told how far the walk is (ops lowered, ops in the graph); returns false
  // when the caller asked to stop, and the export then fails with
  // MX_ERR_CANCELLED. Empty: nobody listens (plugin/entry.cpp connects it
  // to the host's progress function).
  std::function<bool(uint64_t done, uint64_t total)> progress;
};

struct ExportResult {
  std::string onnx_bytes;      // serialized onnx::ModelProto (empty when onnx_file is set)
  std::string onnx_file;       // <output_dir>/model.onnx, weights in model.onnx.data
  std::string hierarchy_json;  // modelexport.hierarchy/1
};

ExportResult export_model(const ExportOptions& options);
// True for a TorchScript zip (code and data.pkl), false for anything else
// (a .pt2 archive from torch.export included): the frontend probe.
bool looks_like_torchscript(const std::string& model_path);
// Hierarchy document with the module tree only (nodes empty).
std::string module_tree_json(const std::string& model_path, bool drop_builtin_tags);

}  // namespace mxts
