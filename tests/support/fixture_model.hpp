// Small ONNX models built in code, so the repository holds no binary
// fixtures. TinyNet: Y = Relu(X @ W + B), X float32[N,4], modules fc/act.
#pragma once
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "mx/onnx_proto.hpp"

namespace mx::testing {

// A float tensor value: `dims` are numbers ("4") or symbols ("N").
void add_tensor_value(onnx::ValueInfoProto* v, const std::string& name,
                      std::initializer_list<const char*> dims);

// A node `name` of op type `op` reading `in` and writing `out`.
onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& name, const std::string& op,
                          std::initializer_list<const char*> in, std::initializer_list<const char*> out);

onnx::ModelProto tiny_net();
std::string tiny_net_bytes();

// Hierarchy document for tiny_net(): root TinyNet, fc (Linear), act (ReLU);
// MatMul/Add direct in fc, Relu propagated to act.
std::string tiny_net_hierarchy();

// A model the checker rejects: a Relu node without inputs.
onnx::ModelProto invalid_net();

// TinyNet with one structural defect the SDK's own check refuses
// (model/check.hpp): "cycle" (/fc/Add reads Y, which /act/Relu writes from
// /fc/Add's output), "undefined" (/fc/Add reads 'ghost') or "duplicate"
// (/fc/Shadow writes h, as /fc/MatMul does). `ir` and `opset` set the
// versions: above 8 / 17 the libonnx 1.12 checker cannot judge the file.
onnx::ModelProto broken_net(const std::string& defect, int64_t ir = 8, int64_t opset = 17);

// Nodes of op type "Op", each given as its (inputs, outputs), after graph
// input x and initializer w: the value names of a graph, nothing else.
using NodeValues = std::pair<std::vector<std::string>, std::vector<std::string>>;
onnx::ModelProto chain_net(const std::vector<NodeValues>& nodes);

}  // namespace mx::testing
