// Output shapes of ops that LibTorch (C++, 1.13) cannot run on the meta
// device and that would cost model-sized compute on stand-ins: convolutions
// (their meta dispatch ends in convolution_overrideable), the norms (their
// meta path reaches native_batch_norm, which has no meta kernel), the fused
// attention / encoder-layer fast paths, rnn_relu / rnn_tanh (whose relu has
// no meta kernel). (Python's torch registers meta
// kernels for these in torch/_meta_registrations.py; LibTorch does not.)
#pragma once
#include <torch/script.h>

namespace mx::torchscript {

// Replaces the node's input stack (meta tensors) by its outputs (meta
// tensors of the right dtype and shape). False when no rule applies.
bool apply_shape_rule(const torch::jit::Node* n, torch::jit::Stack& stack);

}  // namespace mx::torchscript
