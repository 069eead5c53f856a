#include "tagging/graph_topology.hpp"

#include <map>

#include "model/node_metadata.hpp"
#include "util/json_text.hpp"
#include "util/utf8.hpp"

namespace modelexport {
namespace {

using json = nlohmann::json;

// `s` as it reads after a trip through the graph view's JSON text.
std::string as_view_text(const std::string& s) {
  if (is_ascii(s)) return s;  // nothing to replace
  return json::parse(dump_text(json(s))).get<std::string>();
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

const std::string& self(const std::string& s) { return s; }
const std::string& value_name(const onnx::ValueInfoProto& v) { return v.name(); }
const std::string& tensor_name(const onnx::TensorProto& t) { return t.name(); }

// A view of `s`: into the proto when it reads as it is, else into the
// view's own storage (clearing `unchanged`).
std::string_view view_of(const std::string& s, GraphView& view, bool& unchanged) {
  if (is_ascii(s)) return s;
  std::string text = as_view_text(s);
  if (text == s) return s;
  unchanged = false;
  return view.own(std::move(text));
}

// Appends views of the names to view.values.
uint32_t view_strings(const google::protobuf::RepeatedPtrField<std::string>& list, GraphView& view,
                      bool& unchanged) {
  for (const auto& s : list) view.values.push_back(view_of(s, view, unchanged));
  return static_cast<uint32_t>(list.size());
}

// Node input and output names per node, for reserving the view's list
// without a pass over the nodes just to count them (ONNX ops have a few;
// spare capacity costs no memory until used, and more just grows it).
constexpr size_t kValuesPerNode = 4;

}  // namespace

GraphView graph_view_of(const onnx::ModelProto& proto) {
  const auto& g = proto.graph();
  GraphView view;
  view.nodes.reserve(g.node_size());
  view.values.reserve(kValuesPerNode * static_cast<size_t>(g.node_size()));
  bool unchanged = true;
  for (const auto& n : g.node()) {
    GraphNode node{as_view_text(n.name()), as_view_text(n.op_type())};
    node.first_value = static_cast<uint32_t>(view.values.size());
    node.input_count = view_strings(n.input(), view, unchanged);
    node.output_count = view_strings(n.output(), view, unchanged);
    view.nodes.push_back(std::move(node));
  }
  // Views too: a string per weight name was 50,000 allocations at 200,000 nodes.
  view.initializers.reserve(g.initializer_size());
  for (const auto& t : g.initializer()) view.initializers.push_back(view_of(t.name(), view, unchanged));
  view.values_as_in_proto = unchanged;
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
    for (auto& [key, value] : model::read_node_metadata(n))
      metadata[as_view_text(key)] = as_view_text(value);
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

}  // namespace modelexport
