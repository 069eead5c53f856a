// The op-class tables of propagation: which ONNX op types are layout,
// arithmetic or glue, and which op types a parameter-free module of a known
// class (an activation, a pooling, ...) lowers to. Hand-written from what
// the exporters emit (docs/tagging.md §3).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace mx {

// Reshape, Transpose, Squeeze, Unsqueeze, Flatten.
bool is_layout_op(std::string_view op);
// Add, Sub, Mul, Div, Pow.
bool is_arithmetic(std::string_view op);
// Shape arithmetic and glue, which any module's code produces (a `view`
// builds its shape with Shape/Gather/Unsqueeze/Concat): an outline says
// nothing about who ran them.
bool is_glue(std::string_view op);

// The op types a parameter-free module of class `cls` lowers to (empty when
// the class is not known to be an activation/pooling/etc. module).
std::vector<std::string> ops_of_module_class(const std::string& cls);

}  // namespace mx
