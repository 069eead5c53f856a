#include "model/node_metadata.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/unknown_field_set.h>
#include <google/protobuf/wire_format_lite.h>

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

namespace {

using google::protobuf::internal::WireFormatLite;

void append_varint(std::string& out, size_t value) {
  uint8_t buf[10];
  const uint8_t* end =
      google::protobuf::io::CodedOutputStream::WriteVarint64ToArray(value, buf);
  out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(end - buf));
}

void append_string_field(std::string& out, int number, std::string_view value) {
  append_varint(out, WireFormatLite::MakeTag(number, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
  append_varint(out, value.size());
  out.append(value);
}

size_t string_field_size(std::string_view value) {
  // Tags of fields 1 and 2 take one byte.
  return 1 + google::protobuf::io::CodedOutputStream::VarintSize64(value.size()) + value.size();
}

}  // namespace

void append_node_metadata_entry(std::string& out, std::string_view key, std::string_view value) {
  // StringStringEntryProto: key = 1, value = 2, both set (proto2: written
  // even when empty, as set_key/set_value mark them present).
  append_varint(out, WireFormatLite::MakeTag(kNodeMetadataField,
                                             WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
  append_varint(out, string_field_size(key) + string_field_size(value));
  append_string_field(out, 1, key);
  append_string_field(out, 2, value);
}

void set_model_metadata(onnx::ModelProto& proto, const std::string& key, std::string value) {
  for (auto& entry : *proto.mutable_metadata_props()) {
    if (entry.key() == key) {
      entry.set_value(std::move(value));
      return;
    }
  }
  auto* entry = proto.add_metadata_props();
  entry->set_key(key);
  entry->set_value(std::move(value));
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
