// Public interface of the torch.export frontend: a .pt2 archive to ONNX and
// the hierarchy document (docs/hierarchy-schema.md). No LibTorch, no Python.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mx/aten_onnx/error.hpp"
#include "mx/aten_onnx/model_assembly.hpp"

namespace mxte {

using Error = mx::aten_onnx::Error;

struct ExportOptions {
  std::string model_path;
  // Optional "name:dtype[dim,...]" specs: override the example sizes of
  // the program's inputs, checked against its dtypes and range constraints;
  // a named dim (batch=2) names the ONNX dim_param.
  std::vector<std::string> inputs;
  int opset = 17;
  bool drop_builtin_tags = false;
  bool check = true;
  mx::aten_onnx::ExternalData external_data = mx::aten_onnx::ExternalData::automatic;
  std::string output_dir;
  // The host takes weights by reference to model_path (protocol
  // "weights_by_reference"): the archive's stored tensors are not copied.
  bool weights_by_reference = false;
  // Told how far lowering is (program nodes lowered, nodes in the graph);
  // returns false when the caller asked to stop, and the export then fails
  // with MX_ERR_CANCELLED. Empty: nobody listens (plugin/entry.cpp connects
  // it to the host's progress function).
  std::function<bool(uint64_t done, uint64_t total)> progress;
};

struct ExportResult {
  std::string onnx_bytes, onnx_file, hierarchy_json;
};

ExportResult export_model(const ExportOptions& options);
// Lowers every node of a parsed program with no weights and no output
// file: the fuzz target of the graph JSON (fuzz/targets/pt2_program.cpp).
struct Program;
void lower_program_for_check(const Program& program);

// The hierarchy document with the module tree only (nodes empty).
std::string module_tree_json(const std::string& model_path, bool drop_builtin_tags);

}  // namespace mxte
