// The bytes of a model saved with its hierarchy, written straight from the
// loaded model: the one way a save tags a model (a save that needs a proto,
// to check it or to move its external data, parses these bytes back). No
// copy of the proto to store the records on: its small objects, several
// per node, cost more than the rest of the save.
//
// A node whose stored form only gains metadata entries (no unknown fields,
// no doc_string of ours: the usual case) is written as its own bytes
// followed by the entries (NodeTagWriter::write_suffix), which is where
// protobuf puts unknown fields; any other node is copied alone, tagged
// through the proto (NodeTagWriter::write_to) and serialized. Every other
// field of the graph and the model is serialized from the original by
// protobuf (reflection, in field-number order, unknown fields last), so
// the result is byte for byte what serializing a tagged copy gives (the
// oracle of tests/model/test_tagged_bytes.cpp).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "model/model.hpp"
#include "model/tag_storage.hpp"

namespace mx::model {

class TaggedModel;

// The serialized tagged model, sized before it is written, so that it can
// be written where it will stay (the C API's malloc'd buffer, a string).
// External data stays as it is (referred to, not inlined); a model
// without a graph gains an empty one. Computes the original's cached sizes: safe on a model other
// threads read (protobuf's size cache is a relaxed atomic).
class TaggedBytes {
 public:
  TaggedBytes(const mx_model& model, TagStorage storage);
  ~TaggedBytes();
  size_t size() const;
  // Writes exactly size() bytes; size() must be at most INT_MAX.
  void write_to(void* out) const;
  // The same bytes handed to `sink` in pieces of `piece` bytes (the last
  // one shorter), for a file: no buffer of the whole model (faulted in
  // page by page and zero-filled first). An
  // exception from `sink` ends the writing and is rethrown.
  void write_in_pieces(const std::function<void(std::string_view)>& sink, size_t piece) const;

 private:
  std::unique_ptr<TaggedModel> tagged_;
};

// The bytes in a string, or nullopt when they would be larger than
// `limit`.
std::optional<std::string> tagged_bytes(const mx_model& model, TagStorage storage, size_t limit);

}  // namespace mx::model
