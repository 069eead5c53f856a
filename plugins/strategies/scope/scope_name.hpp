// Reading the module scope out of a TorchScript-exporter node name.
//
// torch.onnx.export (TorchScript path) names nodes "/<scope>/<scope>/<Op>",
// one scope per called module, each scope being the module's *unqualified*
// name: the last non-numeric atom of its dotted path plus any numeric atoms
// after it (torch/onnx/utils.py, _unqualified_variable_name). So
//   encoder.layer.0.attention   → scopes "encoder", "layer.0", "attention"
//   layer1.0.downsample.0       → scopes "layer1", "layer1.0", "downsample", "downsample.0"
// A Sequential that is itself called repeats its name in its items' scope
// ("layer1" then "layer1.0"); a container that is never called (ModuleList)
// has no scope of its own ("encoder" then "layer.0").
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mx::scope {

// The dotted pieces each scope adds to the module path, in order:
// "/layer1/layer1.0/conv1/Conv" → {"layer1", "0", "conv1"}, as views into
// `node_name` written over `steps` (a buffer reused from node to node: a
// 200,000-node graph allocated a vector and a string per piece). False
// (and `steps` unspecified) when the name has no scope ("Constant_12",
// "/Constant") or is malformed.
bool scope_steps(std::string_view node_name, std::vector<std::string_view>& steps);

// "/Mul_3", "/Constant": the exporter's name for an op of the root module's
// own forward (a slash, then the op's name and nothing else). Names without
// the slash ("Constant_12", "onnx::Add_5") come from elsewhere.
bool is_root_scope_name(std::string_view node_name);

// The steps joined: "/layer1/layer1.0/conv1/Conv" → "layer1.0.conv1".
std::optional<std::string> scope_module_path(std::string_view node_name);

}  // namespace mx::scope
