// The libonnx checker plus strict shape inference (onnx 1.12 has no
// full_check flag; this is what onnx.checker.check_model(full_check=True)
// does). Errors are MX_ERR_SCHEMA with libonnx's message, which names the
// node and op.
#pragma once
#include <string>

#include <onnx/onnx_pb.h>

namespace modelexport::model {

void check_onnx(const onnx::ModelProto& proto, const std::string& where);

}  // namespace modelexport::model
