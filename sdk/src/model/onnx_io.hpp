// ONNX bytes <-> onnx::ModelProto, with messages that say which file is
// broken and how ("bert.onnx: not an ONNX model (protobuf parse failed ...)").
#pragma once
#include <string>
#include <string_view>

#include "mx/onnx_proto.hpp"

namespace mx::model {

// `where` names the source (file path or "bytes"). MX_ERR_PARSE when the
// bytes are empty, not protobuf, or protobuf without a graph.
onnx::ModelProto parse_onnx(std::string_view bytes, const std::string& where);
// The same into `proto` (which must be empty): a model's proto lives in its
// arena (model/model.hpp) and is parsed where it lives, not moved there.
void parse_onnx_into(std::string_view bytes, const std::string& where, onnx::ModelProto& proto);

// MX_ERR_UNSUPPORTED beyond protobuf's 2 GB message limit.
std::string serialize_onnx(const onnx::ModelProto& proto, const std::string& where);

}  // namespace mx::model
