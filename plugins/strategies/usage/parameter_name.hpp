// Which module owns an initializer, judged from its name alone.
//
// PyTorch names parameters and buffers by their `named_parameters()` path,
// `encoder.layer.0.attention.self.query.weight`; the owning module is that
// path without its last component. Names the exporter invented
// (`onnx::MatMul_123`, `/encoder/Constant_output_0`, `_val_12`, `const_3`)
// carry no module and must be ignored, not assigned to the root.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace mx::usage {

// The module path, or nullopt when the name does not look like a parameter
// path: it must be two or more dot-separated components, each an identifier
// or a non-negative integer (ModuleList / Sequential items). A single
// component (a root-level parameter such as ViT's `class_token`) also
// yields nullopt: it is indistinguishable from an invented name, and the
// root is the fallback anyway.
std::optional<std::string> module_of_parameter(std::string_view name);

}  // namespace mx::usage
