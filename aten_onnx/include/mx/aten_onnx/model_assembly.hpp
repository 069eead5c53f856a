// The last steps every frontend takes after lowering: name the graph
// outputs, drop dead nodes and unused initializers, write the weights
// (inline or external data), run shape inference and the ONNX checker. The
// hierarchy document is hierarchy_document.hpp's.
#pragma once
#include "mx/onnx_proto.hpp"

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "mx/aten_onnx/onnx_emitter.hpp"
#include "mx/aten_onnx/opset.hpp"
#include "mx/aten_onnx/weights.hpp"

namespace mx::aten_onnx {

// Where the weights go (docs/plugin-protocol.md, "external_data").
enum class ExternalData {
  automatic,  // external when the model would exceed protobuf's 2 GB limit
  yes,        // always external (tensors of 1 KB and more)
  no          // always inline; a model over the limit is an error
};

// Output `k` of `n`: "output" when there is one, else "output_<k>".
std::string output_name(size_t k, size_t n);

// Makes `value` a graph output named `name`: renames the producing node's
// output, or adds an Identity when the value is a graph input, an
// initializer or already an output. `elem_type`/`rank` type the output
// (dims unknown; shape inference fills them in). Returns the name the
// value has afterwards (`name` when the producer's output was renamed).
std::string add_graph_output(OnnxEmitter& e, const std::string& value, const std::string& name,
                             int32_t elem_type, int64_t rank);

// Removes nodes whose outputs reach no graph output and initializers no
// node reads (but the default of a graph input); returns the names of the
// removed nodes.
std::set<std::string> eliminate_dead_nodes(onnx::GraphProto& g);

struct AssemblyOptions {
  int opset = kDefaultOpset;
  std::string graph_name;
  std::string producer_version;
  bool check = true;  // onnx shape inference + checker
  ExternalData external_data = ExternalData::automatic;
  // Existing private directory where an external-data export writes
  // model.onnx + model.onnx.data; empty = external data impossible.
  std::string output_dir;
  // The request's "model_path" when the host takes weights by reference
  // (docs/plugin-protocol.md): weights stored as they are in the source
  // file are referred to there, not copied; the host writes them to the
  // output (inline or external, as it saves). Empty = off.
  std::string weights_source;
  // The host also accepts references to files of output_dir in an answer
  // by reference (docs/plugin-protocol.md, "output_dir_references"): the
  // derived weights the host does not derive are streamed there once, not
  // carried inline.
  bool output_dir_references = false;
  // The host derives weights (docs/plugin-protocol.md,
  // "derived_references"): a derived weight whose bytes sit in the source
  // is referred to there with its derivation, and never written here.
  bool derived_references = false;
};

struct AssembledModel {
  std::string onnx_bytes;  // serialized ModelProto (empty when onnx_file is set)
  std::string onnx_file;   // <output_dir>/model.onnx, weights in model.onnx.data
};

// Builds the ModelProto (IR 8) around `graph` and writes its weights: by
// reference to the source file when o.weights_source is set and what is
// left inline fits protobuf's limit, else inline or external data.
// Errors: MX_ERR_INVALID_ARGUMENT over 2 GB without external data,
// MX_ERR_INTERNAL when the checker refuses the graph (a lowering bug).
AssembledModel assemble_model(onnx::GraphProto&& graph, const WeightMap& weights, const AssemblyOptions& o);

}  // namespace mx::aten_onnx
