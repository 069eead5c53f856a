// Picks one module for a node from the parameters it consumes.
//
// The rule, in order (docs: plugins/strategies/usage/README.md):
//  1. every parameter names the same module            -> that module;
//  2. otherwise the parameters called `weight` (the op's main operand: the
//     Conv/MatMul/Gemm kernel, the Gather table, the LayerNorm scale) name
//     exactly one module                                -> that module;
//  3. otherwise the deepest module that is an ancestor of all of them,
//     unless that is the root, which is no evidence    -> no assignment.
// Rule 2 exists because fused nodes (ORT's SkipLayerNormalization, a Gemm
// fed another layer's bias through an Add folded away) consume parameters of
// neighbouring modules, while the weight identifies the layer that computes.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mx::usage {

// `parameters` are initializer names (already known to be parameter paths).
std::optional<std::string> choose_module(const std::vector<std::string>& parameters);

}  // namespace mx::usage
