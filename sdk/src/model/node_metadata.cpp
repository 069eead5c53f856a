#include "model/node_metadata.hpp"

#include <cstring>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

namespace mx::model {

MetadataEntries read_node_metadata(const onnx::NodeProto& node) {
  MetadataEntries entries;
  entries.reserve(static_cast<size_t>(node.metadata_props_size()));
  for (const auto& e : node.metadata_props()) entries.emplace_back(e.key(), e.value());
  return entries;
}

void write_node_metadata(onnx::NodeProto& node, const MetadataEntries& entries) {
  node.clear_metadata_props();
  for (const auto& [key, value] : entries) {
    auto* entry = node.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  }
}

namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedOutputStream;

char* write_varint(char* at, size_t value) {
  auto* end = CodedOutputStream::WriteVarint64ToArray(value, reinterpret_cast<uint8_t*>(at));
  return reinterpret_cast<char*>(end);
}

size_t string_field_size(size_t size) {
  // Tags of fields 1 and 2 take one byte.
  return 1 + CodedOutputStream::VarintSize64(size) + size;
}

constexpr uint32_t kEntryTag =
    WireFormatLite::MakeTag(kNodeMetadataField, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
constexpr uint32_t kKeyTag = WireFormatLite::MakeTag(1, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
constexpr uint32_t kValueTag = WireFormatLite::MakeTag(2, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);

size_t entry_body_size(std::string_view key, size_t value_size) {
  return string_field_size(key.size()) + string_field_size(value_size);
}

// The one-byte tags node_metadata_entry_size counts.
static_assert(kEntryTag < 0x80 && kKeyTag < 0x80 && kValueTag < 0x80);

}  // namespace

char* write_node_metadata_entry(char* at, std::string_view key,
                                std::initializer_list<std::string_view> value_parts, size_t value_size) {
  at = write_varint(at, kEntryTag);
  at = write_varint(at, entry_body_size(key, value_size));
  at = write_varint(at, kKeyTag);
  at = write_varint(at, key.size());
  std::memcpy(at, key.data(), key.size());
  at += key.size();
  at = write_varint(at, kValueTag);
  at = write_varint(at, value_size);
  for (std::string_view part : value_parts) {
    if (part.empty()) continue;  // its data() may be null: no memcpy
    std::memcpy(at, part.data(), part.size());
    at += part.size();
  }
  return at;
}

void append_node_metadata_entry(std::string& out, std::string_view key, std::string_view value) {
  const size_t begin = out.size();
  out.resize(begin + node_metadata_entry_size(key, value.size()));
  write_node_metadata_entry(out.data() + begin, key, {value}, value.size());
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

}  // namespace mx::model
