#include "model/message_depth.hpp"

#include <algorithm>
#include <climits>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

namespace mx::model {

int message_depth(std::string_view bytes, const google::protobuf::Descriptor* root, int stop_after) {
  using google::protobuf::FieldDescriptor;
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream in(&raw);
  in.SetTotalBytesLimit(INT_MAX);
  struct Open {
    const google::protobuf::Descriptor* message;  // of the enclosing message
    google::protobuf::io::CodedInputStream::Limit limit;
  };
  std::vector<Open> open;  // the messages being read, innermost last
  const google::protobuf::Descriptor* message = root;
  int deepest = 0;
  for (;;) {
    const uint32_t tag = in.ReadTag();
    if (tag == 0) {  // end of the current message (or of the bytes)
      if (open.empty()) break;
      in.PopLimit(open.back().limit);
      message = open.back().message;
      open.pop_back();
      continue;
    }
    const FieldDescriptor* field = message ? message->FindFieldByNumber(static_cast<int>(tag >> 3)) : nullptr;
    if (field && field->type() == FieldDescriptor::TYPE_MESSAGE &&
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t size = 0;
      if (!in.ReadVarint32(&size)) break;
      open.push_back({message, in.PushLimit(static_cast<int>(size))});
      message = field->message_type();
      deepest = std::max(deepest, static_cast<int>(open.size()));
      if (deepest > stop_after) break;
      continue;
    }
    if (!WireFormatLite::SkipField(&in, tag)) break;
  }
  return deepest;
}

}  // namespace mx::model
