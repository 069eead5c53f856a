// Which dims of a value are dynamic: the shifted run.
//
// The walk runs every node on the example inputs' shapes. To know which
// dims of a value follow the model inputs' named (dynamic) dims, every node
// that reads such a value runs a second time, on the *shifted* example: each
// named input dim doubled (doubling keeps divisibility, and strided
// convolutions or pools still see a different length). A dim is dynamic iff
// it differs between the two runs; a value whose shifted run failed (a
// reshape the shifted sizes do not fit, a slice of a fixed-size weight, a
// list of another length) has every dim dynamic, as has everything computed
// from it. A value that reads no named dim has no shifted twin: all its dims
// are static.
//
// A dim can coincide at both shapes and still depend on a named dim (a
// length rounded up to a multiple larger than twice the example): it is then
// taken as static. docs/architecture.md and plugins/torchscript/README.md
// ("Dynamic dims") say so.
#pragma once
#include <torch/script.h>

#include <functional>
#include <vector>

#include "ctx.hpp"

namespace mx::torchscript {

// The size a named input dim has in the shifted run.
int64_t shifted_size(int64_t example);

// What the shifted run of a node's inputs knows: none when no input depends
// on a named dim, unknown when one of them has no shifted value.
Shift shift_of_inputs(const std::vector<VP>& ins);

// Runs the node on its inputs' shifted values (`run` executes a stack as
// the main run does). Returns the shifted outputs, or nothing when the run
// failed or gave another number of outputs. Inputs the node may write
// (schema alias `!`) are copied first when they have no shifted twin, so
// the shifted run never mutates a value the main run reads.
std::optional<tj::Stack> run_shifted(const tj::Node* n, const std::vector<VP>& ins,
                                     const std::function<void(tj::Stack&)>& run);

// v with its shifted twin (a copy of the Val; list elements too).
VP with_shift(const VP& v, Shift shift, const c10::IValue* shifted);

// Per dim of a tensor value: true when it is dynamic.
std::vector<bool> dynamic_dims(const at::Tensor& example, Shift shift, const c10::IValue& shifted);

}  // namespace mx::torchscript
