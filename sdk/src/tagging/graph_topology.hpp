// The parts of a model's graph view (mx_model_graph_json) that tagging needs:
// node topology for propagation, and the strategy request's "graph" object.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include "mx/onnx_proto.hpp"

#include "model/value_table.hpp"

namespace mx {

struct GraphNode {
  // A copy, taken while the node is read anyway: it becomes the node's
  // record's name (build_document), and reading the proto's again there,
  // long after, was three dependent cache misses per node.
  std::string name;
  // A view like the value names below (into the proto, or into
  // GraphView::owned for text that needed replacing).
  std::string_view op_type;
  // Its value names: `input_count` from `first_input` in
  // GraphView::input_names, `output_count` from `first_output` in
  // GraphView::output_names (a vector of each per node was 400,000
  // allocations at 200,000 nodes).
  uint32_t first_input = 0, input_count = 0, first_output = 0, output_count = 0;
};

// A node's input or output names.
struct ValueNames {
  const std::string_view *b = nullptr, *e = nullptr;
  const std::string_view* begin() const { return b; }
  const std::string_view* end() const { return e; }
  size_t size() const { return static_cast<size_t>(e - b); }
  bool empty() const { return b == e; }
  std::string_view operator[](size_t i) const { return b[i]; }
};

struct GraphView {
  std::vector<GraphNode> nodes;
  // Every node's input names, node after node, and its output names. Views
  // into the proto the view was read from (which outlives it), or into
  // `owned` for names that needed replacing: copying every value name was a
  // tenth of tagging at 200,000 nodes. "" marks an omitted optional input.
  // Laid out as model::ValueTable's slots, whose names they are when read
  // with one (graph_view_of below).
  std::vector<std::string_view> input_names, output_names;
  // Names of initializers (weights, buffers): a node input that no node
  // produces is an initializer if listed here, else a graph input. Views
  // like `input_names` (a view built by hand may list literals).
  std::vector<std::string_view> initializers;
  // Every node input and output name and every initializer name is the
  // proto's own bytes (none needed replacing): ids interned from the proto
  // (model::ValueTable) are then this view's values too. False for views
  // built by hand.
  bool values_as_in_proto = false;
  // Storage of value names the proto does not hold as they read here
  // (stable addresses; the view moves but is not copied).
  std::vector<std::unique_ptr<std::string>> owned;

  ValueNames inputs(size_t node) const {
    const GraphNode& n = nodes[node];
    const std::string_view* at = input_names.data() + n.first_input;
    return {at, at + n.input_count};
  }
  ValueNames outputs(size_t node) const {
    const GraphNode& n = nodes[node];
    const std::string_view* at = output_names.data() + n.first_output;
    return {at, at + n.output_count};
  }
  std::string_view own(std::string text) {
    owned.push_back(std::make_unique<std::string>(std::move(text)));
    return *owned.back();
  }
  // For views built by hand (tests): a node whose value names the view keeps.
  void add_node(std::string name, std::string op_type, const std::vector<std::string>& inputs,
                const std::vector<std::string>& outputs) {
    nodes.push_back(GraphNode{std::move(name), own(std::move(op_type)),
                              static_cast<uint32_t>(input_names.size()), static_cast<uint32_t>(inputs.size()),
                              static_cast<uint32_t>(output_names.size()),
                              static_cast<uint32_t>(outputs.size())});
    for (const auto& v : inputs) input_names.push_back(own(v));
    for (const auto& v : outputs) output_names.push_back(own(v));
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
// The same from the graph's values already interned (model::intern_values
// of proto.graph(), e.g. the tagger's, shared with the structure check):
// the table's slot names move into the view, so the graph's name strings
// are not read again. The table keeps its ids for propagation
// (tagging/graph_edges.hpp values_of). Without the slot names (a view
// took them already) it reads the proto as graph_view_of(proto) does.
GraphView graph_view_of(const onnx::ModelProto& proto, model::ValueTable& values);
void append_strategy_graph_text(const onnx::ModelProto& proto, std::string& out);

}  // namespace mx
