// libmodelexport_onnx.so holds the whole ONNX library (linked in as a
// whole archive, see CMakeLists.txt); this file only gives the shared object
// a translation unit of its own and a way to ask which ONNX it carries.
#include "mx/onnx_proto.hpp"

#include <onnx/common/version.h>

extern "C" __attribute__((visibility("default"))) const char* mx_onnx_library_version() {
  return ONNX_VERSION_STRING;
}
