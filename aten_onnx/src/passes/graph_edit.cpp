#include "graph_edit.hpp"

namespace mx::aten_onnx::passes {
namespace {

template <class F>
void for_each_subgraph(onnx::NodeProto& n, F&& f) {
  for (auto& a : *n.mutable_attribute()) {
    if (a.has_g()) f(*a.mutable_g());
    for (auto& sg : *a.mutable_graphs()) f(sg);
  }
}

void collect_reads(const onnx::GraphProto& g, std::set<std::string>& out) {
  for (const auto& n : g.node()) {
    for (const auto& i : n.input()) out.insert(i);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_reads(a.g(), out);
      for (const auto& sg : a.graphs()) collect_reads(sg, out);
    }
  }
  for (const auto& o : g.output()) out.insert(o.name());
}

void rename_in(onnx::GraphProto& g, const std::map<std::string, std::string>& renames) {
  for (auto& n : *g.mutable_node()) {
    for (auto& i : *n.mutable_input()) {
      auto it = renames.find(i);
      if (it != renames.end()) i = it->second;
    }
    for_each_subgraph(n, [&](onnx::GraphProto& sg) { rename_in(sg, renames); });
  }
}

}  // namespace

bool has_subgraph(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute())
    if (a.has_g() || a.graphs_size() > 0) return true;
  return false;
}

std::set<std::string> subgraph_reads(const onnx::GraphProto& g) {
  std::set<std::string> out;
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_reads(a.g(), out);
      for (const auto& sg : a.graphs()) collect_reads(sg, out);
    }
  return out;
}

std::set<std::string> graph_outputs(const onnx::GraphProto& g) {
  std::set<std::string> out;
  for (const auto& o : g.output()) out.insert(o.name());
  return out;
}

void rename_reads(onnx::GraphProto& g, const std::map<std::string, std::string>& renames) {
  if (!renames.empty()) rename_in(g, renames);
}

void remove_nodes(onnx::GraphProto& g, const std::set<std::string>& names) {
  if (names.empty()) return;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (auto& n : *g.mutable_node())
    if (!names.count(n.name())) kept.Add()->Swap(&n);
  g.mutable_node()->Swap(&kept);
}

}  // namespace mx::aten_onnx::passes
