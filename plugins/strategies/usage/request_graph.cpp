#include "request_graph.hpp"

#include <nlohmann/json.hpp>

namespace mx_usage {
namespace {

std::vector<std::string> string_list(const nlohmann::json& value) {
  std::vector<std::string> out;
  if (!value.is_array()) return out;
  for (const auto& item : value)
    out.push_back(item.is_string() ? item.get<std::string>() : std::string());
  return out;
}

std::string string_field(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

// The node's declared index, or its position when the index is absent or
// unusable (the protocol numbers nodes in order, so both normally agree).
size_t node_slot(const nlohmann::json& node, size_t position, size_t count) {
  auto it = node.find("index");
  if (it != node.end() && it->is_number_unsigned()) {
    auto index = it->get<size_t>();
    if (index < count) return index;
  }
  return position;
}

}  // namespace

GraphView graph_from_json(const nlohmann::json& graph,
                          std::vector<std::string>& problems) {
  GraphView view;
  if (!graph.is_object()) {
    problems.push_back("request has no `graph` object");
    return view;
  }
  auto nodes = graph.find("nodes");
  if (nodes != graph.end() && nodes->is_array()) {
    view.nodes.resize(nodes->size());
    size_t position = 0;
    for (const auto& node : *nodes) {
      size_t slot = node_slot(node, position++, view.nodes.size());
      if (!node.is_object()) {
        problems.push_back("graph.nodes[" + std::to_string(slot) + "] is not an object");
        continue;
      }
      NodeView& out = view.nodes[slot];
      out.op_type = string_field(node, "op_type");
      out.inputs = string_list(node.value("inputs", nlohmann::json()));
      out.outputs = string_list(node.value("outputs", nlohmann::json()));
    }
  } else {
    problems.push_back("graph.nodes is missing or not an array");
  }
  view.initializer_order = string_list(graph.value("initializers", nlohmann::json()));
  for (const auto& name : view.initializer_order)
    if (!name.empty()) view.initializers.insert(name);
  auto shapes = graph.find("initializer_shapes");
  if (shapes != graph.end() && shapes->is_array()) {
    if (shapes->size() != view.initializer_order.size())
      problems.push_back("graph.initializer_shapes does not match graph.initializers");
    for (size_t i = 0; i < shapes->size() && i < view.initializer_order.size(); ++i) {
      std::vector<int64_t> dims;
      bool ok = (*shapes)[i].is_array();
      if (ok)
        for (const auto& d : (*shapes)[i]) {
          ok = ok && d.is_number_integer() && d.get<int64_t>() >= 0;
          if (ok) dims.push_back(d.get<int64_t>());
        }
      if (ok) view.shapes[view.initializer_order[i]] = std::move(dims);
      else problems.push_back("graph.initializer_shapes[" + std::to_string(i) + "] is not a shape");
    }
  }
  return view;
}

}  // namespace mx_usage
