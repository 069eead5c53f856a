// Small ONNX models built in code, so the repository holds no binary
// fixtures. TinyNet: Y = Relu(X @ W + B), X float32[N,4], modules fc/act.
#pragma once
#include <string>

#include <onnx/onnx_pb.h>

namespace modelexport::testing {

onnx::ModelProto tiny_net();
std::string tiny_net_bytes();

// Hierarchy document for tiny_net(): root TinyNet, fc (Linear), act (ReLU);
// MatMul/Add direct in fc, Relu propagated to act.
std::string tiny_net_hierarchy();

// A model the checker rejects: a Relu node without inputs.
onnx::ModelProto invalid_net();

}  // namespace modelexport::testing
