// Lowerings of the scalar overloads of a TorchScript graph: Python int,
// float and bool arithmetic, comparisons and math (aten::add.int,
// aten::sqrt.float, aten::eq.int) and list `+`, which a scripted model
// computes on sizes. The ATen lowerings shared with the .pt2 frontend
// (aten_onnx/src/lower) take tensors; the walker uses one of these only for
// a node none of whose schema arguments is a tensor.
#pragma once
#include <string>
#include <unordered_map>

#include "ctx.hpp"

namespace mx::torchscript {

std::unordered_map<std::string, LowerFn>& scalar_registry();
struct ScalarRegistrar {
  ScalarRegistrar(std::initializer_list<const char*> names, LowerFn fn) {
    for (auto n : names) scalar_registry()[n] = fn;
  }
};
// MXTS_LOWER_SCALARS(fn, "aten::add") registers fn for the scalar overloads of those symbols.
#define MXTS_LOWER_SCALARS(fn, ...) \
  static ::mx::torchscript::ScalarRegistrar MXTS_CAT(mxts_scalar_reg_, __LINE__)({__VA_ARGS__}, fn)

}  // namespace mx::torchscript
