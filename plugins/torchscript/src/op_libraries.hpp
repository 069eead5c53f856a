// The libraries that register a TorchScript model's custom ops
// (TORCH_LIBRARY; torch.ops.load_library in Python): LibTorch cannot load
// a model that calls mylib::scaled_add, nor run the op for its shapes,
// unless the process has registered it. MODELEXPORT_TORCH_OP_LIBRARIES
// names them (paths separated by ':'); they are opened once per process,
// before the first model is loaded, and stay open (LibTorch's operator
// registry keeps pointers into them).
#pragma once
#include <string>

namespace mx::torchscript {

// The environment variable naming the op libraries.
inline constexpr const char* kOpLibrariesVariable = "MODELEXPORT_TORCH_OP_LIBRARIES";

// Opens the libraries MODELEXPORT_TORCH_OP_LIBRARIES names, once; throws
// Error(MX_ERR_PLUGIN) naming a library that cannot be opened (again on
// every later call, so that no export runs without it).
void load_torch_op_libraries();

// "none", or the libraries opened: for messages.
std::string torch_op_libraries();

}  // namespace mx::torchscript
