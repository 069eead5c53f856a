// The frontend's probe: is a file a TorchScript zip? Without LibTorch, so
// that the lazy entry (src/lazy/) answers it before LibTorch is loaded and
// the LibTorch part answers it alike.
#pragma once
#include <string>

namespace mx::torchscript {

// True for what torch.jit.save writes (a zip with data.pkl), false for
// anything else, a .pt2 archive from torch.export included.
bool looks_like_torchscript(const std::string& model_path);

}  // namespace mx::torchscript
