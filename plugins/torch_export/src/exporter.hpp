// Public interface of the torch.export frontend: a .pt2 archive to ONNX and
// the hierarchy document (docs/hierarchy-schema.md). No LibTorch, no Python.
#pragma once
#include <string>

#include "mx/aten_onnx/error.hpp"
#include "mx/aten_onnx/frontend_plugin.hpp"

namespace mx::torch_export {

using Error = mx::aten_onnx::Error;

// The request and answer every frontend shares (aten_onnx/frontend_plugin):
// `inputs` are optional here — specs override the program's example sizes
// and are checked against its dtypes and range constraints; a named dim
// (batch=2) names the ONNX dim_param. `progress` hears of program nodes
// lowered; with `weights_by_reference` the archive's stored tensors are
// referred to, not copied.
using ExportOptions = mx::aten_onnx::ExportRequest;
using ExportResult = mx::aten_onnx::ExportAnswer;

ExportResult export_model(const ExportOptions& options);
// Lowers every node of a parsed program with no weights and no output
// file: the fuzz target of the graph JSON (fuzz/targets/pt2_program.cpp).
struct Program;
void lower_program_for_check(const Program& program);

// The hierarchy document with the module tree only (nodes empty).
std::string module_tree_json(const std::string& model_path, bool drop_builtin_tags);

}  // namespace mx::torch_export
