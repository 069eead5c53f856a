// The ONNX library as the SDK uses it: the protobuf messages, and the one
// spelling `onnx::` for the namespace the library was built in (mx_onnx,
// see common/onnx/CMakeLists.txt). Include this, never <onnx/onnx_pb.h>
// directly, so no file depends on the namespace the build chose.
#pragma once

#include <onnx/onnx_pb.h>

namespace onnx = ONNX_NAMESPACE;
