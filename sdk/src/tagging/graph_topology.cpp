#include "tagging/graph_topology.hpp"

#include <map>

#include "model/node_metadata.hpp"
#include "util/json_text.hpp"
#include "util/utf8.hpp"

namespace mx {
namespace {

using json = nlohmann::json;

// `s` as it reads after a trip through the graph view's JSON text.
std::string as_view_text(std::string_view s) {
  if (is_ascii(s)) return std::string(s);  // nothing to replace
  return json::parse(dump_text(json(std::string(s)))).get<std::string>();
}

template <typename List, typename Name>
void append_names(std::string& out, const List& list, Name name) {
  out += '[';
  bool first = true;
  for (const auto& item : list) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, name(item));
  }
  out += ']';
}

const std::string& self(const std::string& s) {
  return s;
}
const std::string& value_name(const onnx::ValueInfoProto& v) {
  return v.name();
}
const std::string& tensor_name(const onnx::TensorProto& t) {
  return t.name();
}

// A view of `s`: into the proto when it reads as it is, else into the
// view's own storage (clearing `unchanged`).
std::string_view view_of(std::string_view s, GraphView& view, bool& unchanged) {
  if (is_ascii(s)) return s;
  std::string text = as_view_text(s);
  if (text == s) return s;
  unchanged = false;
  return view.own(std::move(text));
}

// Each node's name and op type, and where its value names start (its
// slots in model::ValueTable's order).
void add_nodes(const onnx::GraphProto& g, GraphView& view) {
  view.nodes.reserve(static_cast<size_t>(g.node_size()));
  uint32_t inputs = 0, outputs = 0;
  bool unchanged = true;  // (only the value names' flag is kept)
  for (const auto& n : g.node()) {
    GraphNode node{as_view_text(n.name()),
                   view_of(n.op_type(), view, unchanged),
                   inputs,
                   static_cast<uint32_t>(n.input_size()),
                   outputs,
                   static_cast<uint32_t>(n.output_size())};
    inputs += node.input_count;
    outputs += node.output_count;
    view.nodes.push_back(std::move(node));
  }
}

// The view's value and initializer names from the graph's slot names
// (views into the proto); `ascii`: all of them are plain ASCII, so none
// needs a look.
void add_names(model::ValueTable::SlotNames&& names, bool ascii, GraphView& view) {
  view.input_names = std::move(names.inputs);
  view.output_names = std::move(names.outputs);
  bool unchanged = true;
  if (!ascii) {
    for (auto& s : view.input_names) s = view_of(s, view, unchanged);
    for (auto& s : view.output_names) s = view_of(s, view, unchanged);
  }
  // Views too: a string per weight name was 50,000 allocations at 200,000 nodes.
  view.initializers = std::move(names.initializers);
  if (!ascii)
    for (auto& s : view.initializers) s = view_of(s, view, unchanged);
  view.values_as_in_proto = unchanged;
}

}  // namespace

GraphView graph_view_of(const onnx::ModelProto& proto) {
  const auto& g = proto.graph();
  GraphView view;
  add_nodes(g, view);
  model::ValueTable::SlotNames names;
  for (const auto& n : g.node()) {
    names.inputs.insert(names.inputs.end(), n.input().begin(), n.input().end());
    names.outputs.insert(names.outputs.end(), n.output().begin(), n.output().end());
  }
  for (const auto& t : g.initializer()) names.initializers.push_back(t.name());
  add_names(std::move(names), /*ascii=*/false, view);
  return view;
}

GraphView graph_view_of(const onnx::ModelProto& proto, model::ValueTable& values) {
  // Slot names already taken (by an earlier view) or not this graph's.
  if (values.input_begin.size() != static_cast<size_t>(proto.graph().node_size()) + 1 ||
      values.slot_names.inputs.size() != values.inputs.size() ||
      values.slot_names.outputs.size() != values.outputs.size() ||
      values.slot_names.initializers.size() != static_cast<size_t>(proto.graph().initializer_size()))
    return graph_view_of(proto);
  GraphView view;
  add_nodes(proto.graph(), view);
  add_names(std::move(values.slot_names), values.ascii, view);
  return view;
}

void append_strategy_graph_text(const onnx::ModelProto& proto, std::string& out) {
  const auto& g = proto.graph();
  // Keys in std::map order, as nlohmann::json objects dump them.
  // Shapes beside names: `usage` matches weights whose name the exporter
  // replaced (`onnx::Conv_12`) by size (plugins/strategies/usage/README.md).
  out += "{\"initializer_shapes\":[";
  for (int i = 0; i < g.initializer_size(); ++i) {
    if (i) out += ',';
    out += '[';
    const auto& dims = g.initializer(i).dims();
    for (int d = 0; d < dims.size(); ++d) {
      if (d) out += ',';
      out += std::to_string(dims[d]);
    }
    out += ']';
  }
  out += "],\"initializers\":";
  append_names(out, g.initializer(), tensor_name);
  out += ",\"inputs\":";
  append_names(out, g.input(), value_name);
  out += ",\"nodes\":[";
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    if (i) out += ',';
    out += "{\"doc_string\":";
    append_json_string(out, n.doc_string());
    out += ",\"domain\":";
    append_json_string(out, n.domain());
    out += ",\"index\":";
    out += std::to_string(i);
    out += ",\"inputs\":";
    append_names(out, n.input(), self);
    out += ",\"metadata\":{";
    // The view's object: the last entry of a repeated key wins; keys sorted.
    std::map<std::string, std::string> metadata;
    for (auto& [key, value] : model::read_node_metadata(n)) metadata[as_view_text(key)] = as_view_text(value);
    bool first = true;
    for (const auto& [key, value] : metadata) {
      if (!first) out += ',';
      first = false;
      append_json_string(out, key);
      out += ':';
      append_json_string(out, value);
    }
    out += "},\"name\":";
    append_json_string(out, n.name());
    out += ",\"op_type\":";
    append_json_string(out, n.op_type());
    out += ",\"outputs\":";
    append_names(out, n.output(), self);
    out += '}';
  }
  out += "],\"outputs\":";
  append_names(out, g.output(), value_name);
  out += '}';
}

}  // namespace mx
