// The test oracle of the save's encoder (model/tagged_bytes): the model
// copied, every node tagged through the proto (NodeTagWriter::write_to),
// the model's entries stored, and protobuf's serialization of the copy.
// Slow and obviously in protobuf's field order: what the encoder must
// equal byte for byte.
#pragma once
#include <string>

#include "model/model.hpp"
#include "model/tag_storage.hpp"

namespace mx::testing {

std::string tagged_copy_bytes(const mx_model& model, model::TagStorage storage);

}  // namespace mx::testing
