// Complex values in the walk. ONNX has no complex element type that
// runtimes compute with, so a complex64 / complex128 tensor is carried as
// the .pt2 frontend carries it (aten_onnx/src/lower/fft.cpp): a real
// float / double tensor with a trailing axis of 2 (real, imaginary), the
// layout of torch.view_as_real and of ONNX DFT. Its Val keeps the complex
// dtype (Val::onnx_type COMPLEX64 / COMPLEX128) and its example value
// PyTorch's shape, so every lowering sees the shape without the pair axis.
//
// A node reading a complex value lowers through the "complex."-prefixed
// registration of its op (aten_onnx/src/lower: fft.cpp, complex_*.cpp,
// stft.cpp), or through one of this frontend's own
// lowerings that is right on the pair layout; anything else is refused by
// name, since a lowering unaware of the pair axis would compute garbage
// silently.
#pragma once
#include <string>
#include <vector>

#include "ctx.hpp"

namespace mx::torchscript {

bool is_complex_onnx(int32_t onnx_type);
// The ONNX element type the pair layout stores: FLOAT for COMPLEX64,
// DOUBLE for COMPLEX128, any other type as it is.
int32_t pair_component(int32_t onnx_type);
// A complex tensor's bytes as ONNX gets them: its view_as_real (the same
// storage); any other tensor as it is.
at::Tensor as_pairs(const at::Tensor& t);

// Whether one of a node's inputs is a complex tensor (or a list holding one).
bool reads_complex(const std::vector<VP>& inputs);
// This frontend's own lowerings that stay right on the pair layout: the
// structural ops that only pass values along, and the static facts.
bool own_lowering_reads_pairs(const std::string& kind);
// The refusal of a node reading a complex value that has no lowering for it.
[[noreturn]] void refuse_complex(const Ctx& cx);

// PyTorch's shape of v as a 1-D int64 ONNX tensor: Shape of its ONNX
// tensor, without the pair axis when v is complex.
std::string torch_shape(Ctx& cx, const VP& v);

}  // namespace mx::torchscript
