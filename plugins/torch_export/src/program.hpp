// The exported program of a .pt2 archive: models/model.json (schema
// torch/_export/serde/schema.py, major 8) with its graph, signature and
// range constraints, checked as it is read. Nothing here knows ONNX.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "archive.hpp"
#include "mx/aten_onnx/value.hpp"

namespace mx::torch_export {

inline constexpr int kSchemaMajor = 8;

// One dimension of a tensor in the program: a number, or a symbolic
// expression (`s77`, `2*s77`) with the hint torch recorded.
using Dim = mx::aten_onnx::Dim;

struct TensorMeta {
  int32_t dtype = 0;  // onnx::TensorProto_DataType
  std::vector<Dim> sizes;
  std::vector<Dim> strides;  // as torch recorded them (as_strided needs them)
  Dim storage_offset;        // in elements, as recorded (0 when absent)
};

// A graph input as the signature classifies it.
struct InputSlot {
  enum Kind { user, parameter, buffer, constant, token, other } kind = other;
  std::string value;   // graph value name ("p_conv_weight", "x")
  std::string target;  // parameter/buffer/constant fully qualified name
};

// An output of the program that is not a model output: the value a
// buffer, parameter or user input holds after the call (the signature's
// buffer_mutation / parameter_mutation / user_input_mutation).
struct Mutation {
  enum Kind { buffer, parameter, user_input } kind = buffer;
  std::string value;   // the graph value holding the new contents
  std::string target;  // the buffer's/parameter's fully qualified name, the user input's value name
};

struct Program {
  std::string file;      // for messages
  nlohmann::json model;  // models/model.json
  const nlohmann::json& graph() const { return model.at("graph_module").at("graph"); }
  std::map<std::string, TensorMeta> tensors;  // graph.tensor_values
  std::vector<InputSlot> inputs;
  std::vector<std::string> user_outputs;                      // value names (as_tensor) in order
  std::vector<Mutation> mutations;                            // in the signature's order
  std::map<std::string, std::pair<int64_t, int64_t>> ranges;  // symbol -> [min, max]
  std::string dialect;                                        // "TRAINING" or "ATEN"
};

// Reads and checks archive_format, byteorder and the schema version, then
// the graph's tensor metadata and signature. Errors name the file.
Program read_program(const Archive& archive);
// The part of read_program after the archive checks: models/model.json's
// text (`file` names it in messages). Used by the graph fuzz target.
Program parse_program(const std::string& file, std::string_view model_json);

// graph.tensor_values (of the top graph or a nested one) by value name.
std::map<std::string, TensorMeta> read_tensor_values(const nlohmann::json& graph);

// The codes of torch.export's ScalarType (0..13, 28..35: not c10's numbering).
bool is_torch_dtype_code(int64_t scalar_type);
// torch ScalarType code (schema.py) -> ONNX data type; 0 when unsupported.
int32_t onnx_dtype_of_torch(int64_t scalar_type);

}  // namespace mx::torch_export
