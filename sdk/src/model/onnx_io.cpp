#include "model/onnx_io.hpp"

#include <climits>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "model/message_depth.hpp"
#include "util/error.hpp"

namespace mx::model {

onnx::ModelProto parse_onnx(std::string_view bytes, const std::string& where) {
  onnx::ModelProto proto;
  parse_onnx_into(bytes, where, proto);
  return proto;
}

void parse_onnx_into(std::string_view bytes, const std::string& where, onnx::ModelProto& proto) {
  if (bytes.empty()) fail(MX_ERR_PARSE, where + ": empty file (0 bytes), not an ONNX model");
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    fail(MX_ERR_UNSUPPORTED, where +
                                 ": larger than protobuf's 2 GB limit; an ONNX file "
                                 "this large must keep its weights in external data");
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream in(&raw);
  // The default 64 MB limit would reject real models; allow up to 2 GB.
  in.SetTotalBytesLimit(INT_MAX);
  const bool ok = proto.ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
  const int limit = google::protobuf::io::CodedInputStream::GetDefaultRecursionLimit();
  if (!ok && message_depth(bytes, onnx::ModelProto::descriptor(), limit) > limit)
    fail(MX_ERR_UNSUPPORTED, where + ": messages nested more than " + std::to_string(limit) +
                                 " levels deep (graphs inside node attributes inside graphs …), "
                                 "deeper than protobuf's limit of " +
                                 std::to_string(limit) + "; the file is not read");
  if (!ok)
    fail(MX_ERR_PARSE, where + ": not an ONNX model (protobuf parse failed at byte " +
                           std::to_string(in.CurrentPosition()) + " of " + std::to_string(bytes.size()) +
                           "; truncated or not ONNX)");
  // Arbitrary bytes sometimes parse as a protobuf with only unknown fields.
  if (!proto.has_graph()) fail(MX_ERR_PARSE, where + ": not an ONNX model (valid protobuf but no graph)");
}

std::string serialize_onnx(const onnx::ModelProto& proto, const std::string& where) {
  const size_t size = proto.ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX))
    fail(MX_ERR_UNSUPPORTED, where +
                                 ": model exceeds protobuf's 2 GB limit; save it to a "
                                 "file with {\"external_data\": true}");
  // With the sizes just cached: SerializeToString would compute them all
  // again.
  std::string out(size, '\0');
  auto* end = proto.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(out.data()));
  if (static_cast<size_t>(end - reinterpret_cast<uint8_t*>(out.data())) != size)
    fail(MX_ERR_INTERNAL, where + ": protobuf serialization failed");
  return out;
}

}  // namespace mx::model
