// The error every layer of an exporter throws: a message naming the problem
// and the mx_code (abi/include/modelexport/modelexport.h) the plugin entry
// point returns across the C ABI.
#pragma once
#include <stdexcept>
#include <string>

namespace mx::aten_onnx {

struct Error : std::runtime_error {
  int code;
  Error(int c, const std::string& message) : std::runtime_error(message), code(c) {}
};

}  // namespace mx::aten_onnx
