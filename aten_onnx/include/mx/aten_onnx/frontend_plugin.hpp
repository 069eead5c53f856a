// What every frontend plugin does at its C entry point, written once: the
// export request as the host sends it (docs/plugin-protocol.md), the answer
// a frontend gives back, and the three plugin functions (create, destroy,
// run) that parse the request, call the frontend and copy the answer into
// host-owned buffers — nothing thrown crosses the boundary.
//
// A frontend describes itself with a `Frontend` (its identity, its
// progress stage, and three functions: does it read this file, its module
// tree, its export) and its entry point returns
// frontend_plugin_descriptor<its Frontend>().
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "modelexport/plugin.h"
#include "mx/aten_onnx/frontend_entry.hpp"
#include "mx/aten_onnx/model_assembly.hpp"

namespace mx::aten_onnx {

// One export, as the host asks for it ("operation": "export").
struct ExportRequest {
  std::string model_path;
  // Optional "name:dtype[dim,...]" input specs; a frontend that knows its
  // inputs (torch.export) checks them against the program.
  std::vector<std::string> inputs;
  int opset = kDefaultOpset;
  // Fused ONNX ops where the opset has them (OnnxEmitter::fused_ops).
  bool fused_ops = true;
  // Fold an eval BatchNormalization after a Conv into it (fold_batch_norms).
  bool fold_batch_norms = true;
  // bf16 arithmetic as float32 between Casts (upcast_bf16, graph_passes.hpp).
  bool upcast_bf16 = false;
  // State a program writes is a graph input with a "<name>.updated" output
  // (state_outputs, plugins/torch_export/src/state.hpp); false keeps it an
  // initializer and drops the updates.
  bool state_outputs = true;
  bool drop_builtin_tags = false;
  bool check = true;  // run the ONNX checker and shape inference
  ExternalData external_data = ExternalData::automatic;
  // Directory (existing, writable) where an external-data export writes
  // model.onnx + model.onnx.data. Empty (an old host): a model over the
  // protobuf limit is an error.
  std::string output_dir;
  // The host reads weights from the source file itself (protocol
  // "weights_by_reference"): stored tensors are referred to, not copied.
  bool weights_by_reference = false;
  // The host also takes references to files of output_dir in that answer
  // (protocol "output_dir_references"): weights the frontend rewrote go
  // there, streamed, instead of inline.
  bool output_dir_references = false;
  // The host derives transposed and scaled weights from their source bytes
  // as it writes the output (protocol "derived_references"): such weights
  // are referred to in the source with their derivation, written once.
  bool derived_references = false;
  // Lowering plugins the host found (protocol "lowering_plugins";
  // modelexport/lowering_plugin.h): libraries a frontend opens for the
  // ops of other libraries. Empty: none (or an old host).
  std::vector<std::string> lowering_plugins;
  // Told how far the export is (units done, units in all); returns false
  // when the caller asked to stop, and the export then fails with
  // MX_ERR_CANCELLED. Empty: nobody listens.
  std::function<bool(uint64_t done, uint64_t total)> progress;
  // A warning for the user (the host's log; empty: nobody listens).
  std::function<void(const std::string& message)> warn;
};

// A frontend's answer: the model as bytes, or as a file it wrote (external
// data), and the hierarchy document (modelexport.hierarchy/1).
struct ExportAnswer {
  std::string onnx_bytes;  // serialized onnx::ModelProto (empty when onnx_file is set)
  std::string onnx_file;   // <output_dir>/model.onnx, weights in model.onnx.data
  std::string hierarchy_json;
};

// The assembly options the request states (opset, checks, external data
// and its directory) for a model called `graph_name` made by
// `producer_version`. What a frontend decides itself, such as weights by
// reference, it sets on the result.
AssemblyOptions assembly_options(const ExportRequest& request, const std::string& graph_name,
                                 const char* producer_version);

struct Frontend {
  FrontendIdentity identity;
  const char* progress_stage;                      // what the host's progress function is told
  const char* progress_unit;                       //   ("lower"/"nodes", "walk"/"ops")
  bool (*accepts)(const std::string& model_path);  // the "probe" operation
  std::string (*module_tree_json)(const std::string& model_path, bool drop_builtin_tags);
  ExportAnswer (*export_model)(const ExportRequest& request);
};

// The plugin descriptor's functions for a frontend.
int32_t create_frontend(const Frontend& frontend, const mx_host_api* host, void** state,
                        mx_plugin_output* error);
void destroy_frontend(void* state);
int32_t run_frontend_request(const Frontend& frontend, void* state, const char* request, size_t request_size,
                             mx_plugin_output* out);

// The descriptor MX_PLUGIN_ENTRY returns for the frontend `F` (an object of
// static storage: the descriptor's functions refer to it).
template <const Frontend& F>
const mx_plugin_descriptor* frontend_plugin_descriptor() {
  static const mx_plugin_descriptor d = frontend_descriptor(
      F.identity,
      [](const mx_host_api* host, void** state, mx_plugin_output* error) {
        return create_frontend(F, host, state, error);
      },
      destroy_frontend,
      [](void* state, const char* request, size_t request_size, mx_plugin_output* out) {
        return run_frontend_request(F, state, request, request_size, out);
      });
  return &d;
}

}  // namespace mx::aten_onnx
