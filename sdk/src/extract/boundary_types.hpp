// Types of the tensors that cross an extracted module's boundary: they
// become the graph inputs and outputs of the extracted model, which the
// ONNX checker (and ONNX Runtime) want with an element type AND a shape.
//
// Sources, first that gives a shape wins:
//   1. what the model declares: inputs, outputs, value_info, initializers;
//   2. ONNX shape inference with data propagation over the whole model;
//   3. for what symbolic inference cannot carry — typically a Reshape to a
//      shape computed from dynamic sizes (BERT's attention with dynamic
//      batch and sequence), after which libonnx 1.12 loses even the rank —
//      inference at two concrete bindings of the model's symbolic input
//      dims: a dim equal in both is static, a dim equal to one input
//      symbol's value in both is that symbol, any other dim is dynamic and
//      unnamed.
// The copies inferred carry no weight bytes: large initializers become
// typed graph inputs (inference needs their types, not their values).
#pragma once
#include <memory>
#include <string>
#include <unordered_map>

#include "mx/onnx_proto.hpp"

namespace mx::extract {

class BoundaryTypes {
 public:
  explicit BoundaryTypes(const onnx::ModelProto& proto);
  ~BoundaryTypes();
  BoundaryTypes(const BoundaryTypes&) = delete;
  BoundaryTypes& operator=(const BoundaryTypes&) = delete;

  // Typed and shaped value info of `name`, or nullptr if no source gives
  // both an element type and a shape.
  const onnx::ValueInfoProto* find(const std::string& name);

 private:
  struct Inferred;
  const onnx::ModelProto& proto_;
  std::unordered_map<std::string, onnx::ValueInfoProto> declared_;
  std::unique_ptr<Inferred> inferred_;  // computed on the first miss
};

}  // namespace mx::extract
