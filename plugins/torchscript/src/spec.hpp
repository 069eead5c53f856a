// Input specs "name:dtype[dim,...]" (torch-free).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mx::torchscript {

struct DimSpec {
  int64_t size = 0;
  std::string name;  // non-empty -> dynamic (dim_param)
};

struct InputSpec {
  std::string name;
  std::string dtype;  // canonical: float32 float16 float64 int64 int32 bool
  std::vector<DimSpec> dims;
  std::string text;  // as given
};

// Throws mx::torchscript::Error(MX_ERR_INVALID_ARGUMENT) on malformed specs.
InputSpec parse_input_spec(const std::string& text);

}  // namespace mx::torchscript
