// Running one node of the walk without model-sized compute.
//
// The walk needs every value's dtype and shape (lowerings branch on them)
// and the real value only of what is static by nature: weights, constants
// and shape arithmetic (sizes, int lists, scalars, small tensors made from
// them). So a value computed from the model's inputs travels as a tensor
// on LibTorch's meta device (dtype + shape + strides, no storage), and an
// op reading one runs on meta tensors: its meta kernel computes the output
// shape and nothing else. Real execution is kept for nodes whose inputs are
// all real and small (kRealLimit elements), e.g. NumToTensor(size) -> Int.
//
// Ops without a meta kernel in this LibTorch run once on zero-filled real
// stand-ins of their inputs' shapes (the shape rule is the op's own), and
// their outputs go back to meta. Ops whose output shape or value depends on
// the data (data_dependent_op) cannot be answered from shapes: they run
// only when their inputs are real, and are an error naming the node
// otherwise (plugins/torchscript/README.md, "Shapes, not values").
#pragma once
#include <torch/script.h>

#include <functional>
#include <set>
#include <string>

namespace mx::torchscript {
namespace tj = torch::jit;

// Above this many elements a non-static result is not kept as a real value.
inline constexpr int64_t kRealLimit = 4096;

// True for an IValue holding a meta tensor (directly or in a list/tuple).
bool holds_meta(const c10::IValue& v);

// True when the node's result depends on the values, not only the shapes,
// of its tensor inputs (nonzero, item, unique, boolean-mask indexing, ...).
bool data_dependent_op(const tj::Node* n, const tj::Stack& inputs);

struct ExecHooks {
  // Runs the node's operation on a stack (structural prim ops included).
  std::function<void(tj::Stack&)> run;
  // The error for a data-dependent op whose inputs are meta tensors.
  std::function<void()> data_dependent_error;
};

// Runs a non-static node on its example inputs (the stack): real when every
// tensor input is real and small, else on meta (stand-ins where the op has
// no meta kernel). Leaves the outputs on the stack. `stand_in_ops` collects
// the kinds that needed a stand-in (for the README list and diagnostics).
void exec_shapes(const tj::Node* n, tj::Stack& stack, const ExecHooks& hooks,
                 std::set<std::string>* stand_in_ops);

}  // namespace mx::torchscript
