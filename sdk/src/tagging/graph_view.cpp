#include "tagging/graph_view.hpp"

#include "util/error.hpp"

namespace modelexport {
namespace {

using json = nlohmann::json;

std::vector<std::string> strings_of(const json& node, const char* key) {
  std::vector<std::string> out;
  if (!node.contains(key)) return out;
  for (const auto& v : node.at(key)) out.push_back(v.get<std::string>());
  return out;
}

// The graph view lists values as objects ({"name","dtype","shape"}); the
// protocol sends bare names. Accept either so the two stay decoupled.
json names_of(const json& graph, const char* key) {
  json out = json::array();
  if (!graph.contains(key)) return out;
  for (const auto& v : graph.at(key))
    out.push_back(v.is_object() ? v.value("name", "") : v.get<std::string>());
  return out;
}

json request_node(const json& node, size_t index) {
  return {{"index", index},
          {"name", node.value("name", "")},
          {"op_type", node.value("op_type", "")},
          {"domain", node.value("domain", "")},
          {"inputs", node.value("inputs", json::array())},
          {"outputs", node.value("outputs", json::array())},
          {"metadata", node.value("metadata", json::object())},
          {"doc_string", node.value("doc_string", "")}};
}

}  // namespace

GraphView parse_graph_view(const json& graph) {
  if (!graph.is_object() || !graph.contains("nodes") || !graph.at("nodes").is_array())
    fail(MX_ERR_INTERNAL, "graph view has no \"nodes\" array");
  GraphView view;
  for (const auto& n : graph.at("nodes"))
    view.nodes.push_back(GraphNode{n.value("name", ""), n.value("op_type", ""),
                                   strings_of(n, "inputs"), strings_of(n, "outputs")});
  for (const auto& name : names_of(graph, "initializers"))
    view.initializers.push_back(name.get<std::string>());
  return view;
}

json strategy_graph(const json& graph) {
  json nodes = json::array();
  const json& in = graph.at("nodes");
  for (size_t i = 0; i < in.size(); ++i) nodes.push_back(request_node(in[i], i));
  return {{"nodes", nodes},
          {"initializers", names_of(graph, "initializers")},
          {"inputs", names_of(graph, "inputs")},
          {"outputs", names_of(graph, "outputs")}};
}

}  // namespace modelexport
