#include "model/node_metadata.hpp"

#include <google/protobuf/unknown_field_set.h>

namespace modelexport::model {

using google::protobuf::UnknownField;
using google::protobuf::UnknownFieldSet;

MetadataEntries read_node_metadata(const onnx::NodeProto& node) {
  MetadataEntries entries;
  const UnknownFieldSet& fields = node.unknown_fields();
  for (int i = 0; i < fields.field_count(); ++i) {
    const UnknownField& f = fields.field(i);
    if (f.number() != kNodeMetadataField || f.type() != UnknownField::TYPE_LENGTH_DELIMITED)
      continue;
    onnx::StringStringEntryProto entry;
    // A malformed entry is someone else's bug; skip it rather than refuse
    // the whole model, exactly as a reader that does not know field 9 would.
    if (entry.ParseFromString(f.length_delimited())) entries.emplace_back(entry.key(), entry.value());
  }
  return entries;
}

void write_node_metadata(onnx::NodeProto& node, const MetadataEntries& entries) {
  UnknownFieldSet* fields = node.mutable_unknown_fields();
  // Remove all field-9 entries (back to front keeps indices valid).
  for (int i = fields->field_count() - 1; i >= 0; --i)
    if (fields->field(i).number() == kNodeMetadataField) fields->DeleteSubrange(i, 1);
  for (const auto& [key, value] : entries) {
    onnx::StringStringEntryProto entry;
    entry.set_key(key);
    entry.set_value(value);
    fields->AddLengthDelimited(kNodeMetadataField, entry.SerializeAsString());
  }
}

void set_model_metadata(onnx::ModelProto& proto, const std::string& key,
                        const std::string& value) {
  for (auto& entry : *proto.mutable_metadata_props()) {
    if (entry.key() == key) {
      entry.set_value(value);
      return;
    }
  }
  auto* entry = proto.add_metadata_props();
  entry->set_key(key);
  entry->set_value(value);
}

void erase_model_metadata(onnx::ModelProto& proto, const std::string& key) {
  auto* props = proto.mutable_metadata_props();
  for (int i = props->size() - 1; i >= 0; --i)
    if (props->Get(i).key() == key) props->DeleteSubrange(i, 1);
}

const std::string* find_model_metadata(const onnx::ModelProto& proto, const std::string& key) {
  for (const auto& entry : proto.metadata_props())
    if (entry.key() == key) return &entry.value();
  return nullptr;
}

}  // namespace modelexport::model
