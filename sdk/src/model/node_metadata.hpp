// NodeProto.metadata_props (field 9, ONNX IR 10): read and replaced as a
// list of entries, and the bytes of one entry for the save's encoder, which
// writes a node's new entries after its serialized fields without a copy.
#pragma once
#include <initializer_list>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include "mx/onnx_proto.hpp"

namespace mx::model {

inline constexpr int kNodeMetadataField = 9;

using MetadataEntries = std::vector<std::pair<std::string, std::string>>;

MetadataEntries read_node_metadata(const onnx::NodeProto& node);
// Replaces every entry with `entries`.
void write_node_metadata(onnx::NodeProto& node, const MetadataEntries& entries);
// Appends one entry as a NodeProto serializes it (tag of field 9, length,
// StringStringEntryProto{key, value}): the bytes
// write_node_metadata's entry produces, for an encoder that writes a node's
// metadata after its serialized fields without a copy (model/tagged_bytes).
void append_node_metadata_entry(std::string& out, std::string_view key, std::string_view value);
// The same entry with its value given in pieces (written one after the
// other), for a caller that sizes a node's entries first and writes them
// in one place: its size, then its bytes at `at`; returns their end.
// (Inline: asked four times per node of a save, with constant keys.)
inline size_t node_metadata_entry_size(std::string_view key, size_t value_size) {
  using google::protobuf::io::CodedOutputStream;
  // StringStringEntryProto: key = 1, value = 2, both set (proto2: written
  // even when empty, as set_key/set_value mark them present); the tags of
  // fields 1, 2 and 9 take one byte each.
  const size_t body = 1 + CodedOutputStream::VarintSize64(key.size()) + key.size() + 1 +
                      CodedOutputStream::VarintSize64(value_size) + value_size;
  return 1 + CodedOutputStream::VarintSize64(body) + body;
}
char* write_node_metadata_entry(char* at, std::string_view key,
                                std::initializer_list<std::string_view> value_parts, size_t value_size);

// Model-level metadata_props (a real field in 1.12): set or replace a key.
// (The value is moved in: the module tree's text is megabytes.)
void set_model_metadata(onnx::ModelProto& proto, const std::string& key, std::string value);
void erase_model_metadata(onnx::ModelProto& proto, const std::string& key);
const std::string* find_model_metadata(const onnx::ModelProto& proto, const std::string& key);

}  // namespace mx::model
