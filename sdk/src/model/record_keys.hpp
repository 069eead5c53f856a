// How a record finds its node (docs/hierarchy-schema.md, "Node records"):
// by its name when that name is non-empty and unique in the graph, else by
// its "index" (position among the graph's top-level nodes), whose node must
// then carry the record's name ("" for an unnamed node). A stale index
// next to a unique name is ignored: the name is the stable key. Names are
// compared as records hold them: valid UTF-8, invalid bytes replaced by
// U+FFFD (util/utf8.hpp).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <deque>
#include <string_view>
#include <unordered_map>

#include "mx/onnx_proto.hpp"

#include "hierarchy/document.hpp"

namespace mx::model {

class NodeKeys {
 public:
  // Views into `graph`: valid while its nodes are not changed. `label`
  // names the model in messages ("... is not a node of <label>").
  explicit NodeKeys(const onnx::GraphProto& graph, std::string label = "the graph");

  size_t uses(std::string_view name) const;
  // The node named `name` when exactly one node has that non-empty name.
  std::optional<size_t> unique(std::string_view name) const;
  // The node `record` describes, or nullopt with `why` set.
  std::optional<size_t> find(const hierarchy::NodeRecord& record, std::string* why) const;
  // As find(), or MX_ERR_SCHEMA "<at>: <why>".
  size_t resolve(const hierarchy::NodeRecord& record, const std::string& at) const;
  // Position of the node a caller names (C API: mx_model_node_record):
  // MX_ERR_NOT_FOUND if none, MX_ERR_INVALID_ARGUMENT when the name does
  // not identify one node.
  size_t by_name(const std::string& name, const std::string& model_name) const;

 private:
  const onnx::GraphProto& graph_;
  std::string label_;
  struct Uses {
    size_t first = 0;
    size_t count = 0;
  };
  std::unordered_map<std::string_view, Uses> names_;
  std::deque<std::string> repaired_;  // names that were not valid UTF-8
};

}  // namespace mx::model
