// The parts of a model's graph view (mx_model_graph_json) that tagging needs:
// node topology for propagation, and the strategy request's "graph" object.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

namespace modelexport {

struct GraphNode {
  std::string name;
  std::string op_type;
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;
};

struct GraphView {
  std::vector<GraphNode> nodes;
  // Names of initializers (weights, buffers): a node input that no node
  // produces is an initializer if listed here, else a graph input.
  std::vector<std::string> initializers;
};

// Throws Error(MX_ERR_INTERNAL) if the graph JSON lacks "nodes".
GraphView parse_graph_view(const nlohmann::json& graph);

// The request's "graph": nodes with their index, names (not objects) for
// initializers, inputs and outputs (docs/plugin-protocol.md).
nlohmann::json strategy_graph(const nlohmann::json& graph);

// The same two straight from a model's proto, for mx_registry_tag: what
// parse_graph_view / strategy_graph give for the model's graph view
// (mx_model_graph_json), without building and re-reading that JSON (at
// 200,000 nodes the round trip was a fifth of the tagging time). Strings
// read as they would after the view's text (invalid UTF-8 → U+FFFD,
// util/json_text.hpp), and strategy_graph_text appends exactly the text
// dump_text(strategy_graph(view)) writes: the plugin protocol is unchanged.
GraphView graph_view_of(const onnx::ModelProto& proto);
void append_strategy_graph_text(const onnx::ModelProto& proto, std::string& out);

}  // namespace modelexport
