// Parameters, buffers and constants of a .pt2 archive: described by
// data/weights/model_weights_config.json and
// data/constants/model_constants_config.json (file, dtype, sizes, strides,
// storage offset), their bytes stored in data/weights/<file> and
// data/constants/<file>. A contiguous tensor is a span of the mapped
// archive (no copy); a strided one is gathered once. Every size, stride and
// offset is checked against its file, overflow included.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "archive.hpp"
#include "mx/aten_onnx/weights.hpp"
#include "program.hpp"

namespace mx::torch_export {

struct StoredTensor {
  int32_t dtype = 0;  // onnx
  std::vector<int64_t> dims;
  mx::aten_onnx::WeightBytes bytes;
};

class StoredTensors {
 public:
  explicit StoredTensors(const Archive& archive);
  // The tensor stored under a fully qualified name ("conv.weight"), or
  // nullptr when the archive has none.
  const StoredTensor* find(const std::string& fqn) const;
  // Refuses (MX_ERR_PARSE, naming the tensor) stored data whose dtype or
  // shape is not what `program`'s tensor meta says of the graph value it
  // is bound to: exported, such a file is an ONNX model that no runtime
  // loads (an initializer of 16x16 where the graph reads 32x16).
  void check_against(const Program& program) const;

 private:
  void read_config(const Archive& archive, const std::string& folder, const std::string& config);
  std::map<std::string, StoredTensor> tensors_;
  std::deque<std::string> gathered_;  // owned bytes of strided tensors
};

}  // namespace mx::torch_export
