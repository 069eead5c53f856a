#include "model/record_keys.hpp"

#include "util/error.hpp"
#include "util/utf8.hpp"

namespace mx::model {

NodeKeys::NodeKeys(const onnx::GraphProto& graph, std::string label)
    : graph_(graph), label_(std::move(label)) {
  names_.reserve(static_cast<size_t>(graph.node_size()));
  for (int i = 0; i < graph.node_size(); ++i) {
    std::string_view name = graph.node(i).name();
    if (!is_valid_utf8(name)) name = repaired_.emplace_back(to_valid_utf8(name));
    Uses& u = names_[name];
    if (u.count++ == 0) u.first = static_cast<size_t>(i);
  }
}

size_t NodeKeys::uses(std::string_view name) const {
  auto it = names_.find(name);
  return it == names_.end() ? 0 : it->second.count;
}

std::optional<size_t> NodeKeys::unique(std::string_view name) const {
  auto it = names_.find(name);
  if (name.empty() || it == names_.end() || it->second.count != 1) return std::nullopt;
  return it->second.first;
}

std::optional<size_t> NodeKeys::find(const hierarchy::NodeRecord& record, std::string* why) const {
  // Records built in code may hold a raw node name; JSON ones are valid.
  const std::string key = to_valid_utf8(record.name);
  if (auto at = unique(key)) return at;
  const std::string name = "'" + printable(key) + "'";
  const size_t count = uses(key);
  if (!record.index) {
    if (count == 0) *why = "name: " + name + " is not a node of " + label_;
    else if (record.name.empty())
      *why = "index: required for a record of an unnamed node (the node's position in the graph)";
    else
      *why = "index: required, the name " + name + " is used by " + std::to_string(count) +
             " nodes (the node's position in the graph)";
    return std::nullopt;
  }
  const int64_t index = *record.index;
  if (index < 0 || index >= graph_.node_size()) {
    *why = "index: " + std::to_string(index) + " is not a node position (the graph has " +
           std::to_string(graph_.node_size()) + " nodes)";
    return std::nullopt;
  }
  const std::string actual = to_valid_utf8(graph_.node(static_cast<int>(index)).name());
  if (actual != key) {
    *why = "index: node " + std::to_string(index) + " is named '" + printable(actual) + "', not " + name;
    return std::nullopt;
  }
  return static_cast<size_t>(index);
}

size_t NodeKeys::resolve(const hierarchy::NodeRecord& record, const std::string& at) const {
  std::string why;
  auto found = find(record, &why);
  if (!found) fail(MX_ERR_SCHEMA, at + "." + why);
  return *found;
}

size_t NodeKeys::by_name(const std::string& name, const std::string& model_name) const {
  if (auto at = unique(name)) return *at;
  const size_t count = uses(name);
  if (count == 0) fail(MX_ERR_NOT_FOUND, "no node named '" + printable(name) + "' in " + model_name);
  fail(MX_ERR_INVALID_ARGUMENT, "node name '" + printable(name) + "' does not identify one node of " +
                                    model_name + " (" + std::to_string(count) +
                                    " nodes have it); such nodes are addressed by position " +
                                    "(the record's \"index\", mx_model_hierarchy_json)");
}

}  // namespace mx::model
