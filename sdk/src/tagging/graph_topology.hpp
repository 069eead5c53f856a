// The parts of a model's graph view (mx_model_graph_json) that tagging needs:
// node topology for propagation, and the strategy request's "graph" object.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

namespace modelexport {

struct GraphNode {
  std::string name;
  std::string op_type;
  // Views into the proto the view was read from (which outlives it), or
  // into GraphView::owned for names that needed replacing: copying every
  // value name was a tenth of tagging at 200,000 nodes.
  std::vector<std::string_view> inputs;   // "" marks an omitted optional input
  std::vector<std::string_view> outputs;
};

struct GraphView {
  std::vector<GraphNode> nodes;
  // Names of initializers (weights, buffers): a node input that no node
  // produces is an initializer if listed here, else a graph input.
  std::vector<std::string> initializers;
  // Every node input and output name and every initializer name is the
  // proto's own bytes (none needed replacing): ids interned from the proto
  // (model::ValueTable) are then this view's values too. False for views
  // built by hand.
  bool values_as_in_proto = false;
  // Storage of value names the proto does not hold as they read here
  // (stable addresses; the view moves but is not copied).
  std::vector<std::unique_ptr<std::string>> owned;
  std::string_view own(std::string text) {
    owned.push_back(std::make_unique<std::string>(std::move(text)));
    return *owned.back();
  }
};

// Straight from a model's proto, for mx_registry_tag: the topology
// propagation needs, and the strategy request's "graph" text (nodes with
// their index, bare names for initializers, inputs and outputs;
// docs/plugin-protocol.md). Strings read as they would after the graph
// view's JSON text (invalid UTF-8 → U+FFFD, util/json_text.hpp), so the
// protocol is what mx_model_graph_json's view would give, without building
// and re-reading that JSON (at 200,000 nodes the round trip was a fifth of
// the tagging time).
GraphView graph_view_of(const onnx::ModelProto& proto);
void append_strategy_graph_text(const onnx::ModelProto& proto, std::string& out);

}  // namespace modelexport
