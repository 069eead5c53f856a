// Tensor specs ("input_ids:int64[batch=2,seq=16]") as the torchscript
// frontend parses the "inputs" export option (plugins/torchscript/src/
// spec.cpp is torch-free and compiled in directly). Oracle: a spec is
// either refused with mx::torchscript::Error(MX_ERR_INVALID_ARGUMENT) or parsed into
// something sane: a known dtype, a non-empty name, dims >= 0.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "exporter.hpp"
#include "fuzz_common.hpp"
#include "spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    mx::torchscript::InputSpec s = mx::torchscript::parse_input_spec(text);
    if (s.name.empty()) mxfuzz::finding("input spec", "accepted an empty name: " + text);
    for (const auto& d : s.dims)
      if (d.size < 0) mxfuzz::finding("input spec", "negative dimension: " + text);
  } catch (const mx::torchscript::Error& e) {
    if (e.code != MX_ERR_INVALID_ARGUMENT) mxfuzz::finding("input spec", e.what());
  } catch (const std::exception& e) {
    mxfuzz::finding("input spec", std::string("unexpected exception (") + e.what() + ") for '" + text + "'");
  }
  return 0;
}
