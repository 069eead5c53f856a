// Where a loaded TorchScript file's weights sit in the file itself.
//
// A .pt is a zip whose tensor storages (<archive>/data/N) are stored
// uncompressed, and LibTorch reads each one with a single read straight
// into the buffer that becomes the storage. Loading through a reader that
// remembers (buffer -> file offset, length) of each read therefore tells,
// for a parameter that is a contiguous view of its storage, where its bytes
// are in the file, without reading them again: the export can answer it
// by reference (docs/plugin-protocol.md, "weights_by_reference") and the
// host streams it from the file into the output, the only copy.
#pragma once
#include <torch/script.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

namespace mx::torchscript {

class SourceOffsets {
 public:
  // torch::jit::load of `path`, recording where each storage was read from.
  torch::jit::Module load(const std::string& path);
  // File offset of t's first byte when t's bytes are stored as they are in
  // the file (contiguous, little-endian host), else mx::aten_onnx::kNotInSource.
  uint64_t offset_of(const at::Tensor& t) const;

  struct Read {
    uint64_t pos = 0;
    uint64_t size = 0;
  };
  using Reads = std::unordered_map<const void*, Read>;

 private:
  std::shared_ptr<Reads> reads_ = std::make_shared<Reads>();
};

}  // namespace mx::torchscript
