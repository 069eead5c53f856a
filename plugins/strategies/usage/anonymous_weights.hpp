// Weights whose name the exporter replaced carry no module: torch.onnx folds
// a BatchNorm into the Conv before it (`onnx::Conv_12`, weight and a new
// bias) and pre-transposes a Linear's weight for MatMul (`onnx::MatMul_7`).
// With a supplied hierarchy they are matched by size and program order:
//
// * a module's *unexplained size* is its own parameter count minus the
//   sizes of the named initializers it owns in the file (BERT's `query`:
//   16,512 - 128 for `query.bias` = 16,384; a folded Conv: all of it);
//   modules whose outline cannot lower to a weight-reading op (a folded
//   BatchNorm: BatchNormalization only) are no candidates;
// * a node is one of the ops that read a layer's weight (Conv, Gemm,
//   MatMul, Gather, ONNX Runtime's Fused*, ...) reading an anonymous
//   initializer of rank >= 2; its size is the element count of the
//   anonymous initializers it reads (directly or through chains): all of
//   them, the largest alone, or the largest plus one element per output
//   channel (a zero bias the exporter de-duplicated under another module's
//   name); a node that fits one size class takes it, then a node fitting
//   several takes the first class with a module still free;
// * nodes (file order) and modules (call order, a module once per call) of
//   the same size are paired only when there are as many of each (a stray
//   constant of that size or a module whose weights went elsewhere leaves
//   the whole size class to propagation): first a node whose readers were
//   all placed by name in one module of the class takes that module (the
//   MatMul before the Add of `key.bias`), then the rest in order.
//
// Evidence `parameter`, like a name: the pairing is exact on counts, but it
// trusts the file's node order to follow the program (torch.onnx writes
// nodes as they run; an optimizer that re-sorts parallel branches can swap
// two equal-sized layers of one block).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "request_graph.hpp"
#include "module_outlines.hpp"
#include "static_chains.hpp"
#include "usage_strategy.hpp"

namespace mx::usage {

// Assignments for nodes without a module in `placed_modules` (the
// assignments by name, per node); empty without own parameter counts.
std::vector<UsageAssignment> match_anonymous_weights(
    const GraphView& graph, const ParameterFlow& flow, const ModuleOutlines& modules,
    const std::vector<std::optional<std::string>>& placed_modules);

}  // namespace mx::usage
