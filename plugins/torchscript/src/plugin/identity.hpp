// What the host lists for the "torchscript" plugin. The lazy entry the host
// discovers (src/lazy/) and the LibTorch part it opens (src/plugin/entry.cpp)
// are one plugin and describe themselves alike.
#pragma once
#include "mx/aten_onnx/frontend_entry.hpp"

namespace mx::torchscript {

inline constexpr aten_onnx::FrontendIdentity kIdentity = {
    "torchscript", MXTS_VERSION,
    "TorchScript (.pt) to ONNX through LibTorch, every node tagged with its module"};

}  // namespace mx::torchscript
