// How deeply protobuf messages nest in serialized bytes, read against the
// message's schema without parsing it: protobuf refuses a message nested
// deeper than its recursion limit (100) with the same bare `false` as
// truncated bytes, and the two need different messages (a graph inside an
// If inside a Loop ... is a valid ONNX file protobuf will not read).
#pragma once
#include <string_view>

#include <google/protobuf/descriptor.h>

namespace mx::model {

// Depth of the deepest message below the root (a root's direct message
// fields are 1), counted up to `stop_after` + 1; the walk is iterative and
// stops at the first malformed field.
int message_depth(std::string_view bytes, const google::protobuf::Descriptor* root, int stop_after);

}  // namespace mx::model
