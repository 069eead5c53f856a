#include "model/model.hpp"

#include <algorithm>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "hierarchy/parse.hpp"
#include "hierarchy/tags.hpp"
#include "util/error.hpp"

namespace modelexport::model {
namespace {

// Node name → first index; views into `graph`, valid while it is unchanged.
using NodeIndex = std::unordered_map<std::string_view, size_t>;

NodeIndex node_index(const onnx::GraphProto& graph) {
  NodeIndex index;
  index.reserve(graph.node_size());
  for (int i = 0; i < graph.node_size(); ++i) index.emplace(graph.node(i).name(), i);
  return index;
}

// A stable sort by graph position, each record's position looked up once
// (not twice per comparison), and nothing moved when already in order (the
// usual case: tagging writes records in graph order).
void sort_in_graph_order(hierarchy::Document& doc, const NodeIndex& index) {
  const size_t n = doc.nodes.size();
  std::vector<size_t> position(n);
  for (size_t i = 0; i < n; ++i) position[i] = index.at(doc.nodes[i].name);
  if (std::is_sorted(position.begin(), position.end())) return;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return position[a] < position[b]; });
  std::vector<hierarchy::NodeRecord> sorted;
  sorted.reserve(n);
  for (size_t i : order) sorted.push_back(std::move(doc.nodes[i]));
  doc.nodes = std::move(sorted);
}

}  // namespace

std::string display_name(const mx_model& model) {
  return model.source_path.empty() ? std::string("model") : model.source_path;
}

void set_hierarchy(mx_model& model, hierarchy::Document doc, const std::string& where) {
  hierarchy::validate_consistency(doc, where);
  const auto index = node_index(model.proto.graph());
  for (size_t i = 0; i < doc.nodes.size(); ++i) {
    if (!index.count(doc.nodes[i].name))
      fail(MX_ERR_SCHEMA, where + ": nodes[" + std::to_string(i) + "].name: '" +
                              doc.nodes[i].name + "' is not a node of " +
                              display_name(model));
  }
  hierarchy::derive_tags(doc, {});
  sort_in_graph_order(doc, index);
  model.hierarchy = std::move(doc);
}

void set_node_record(mx_model& model, hierarchy::NodeRecord record) {
  const auto index = node_index(model.proto.graph());
  if (!index.count(record.name))
    fail(MX_ERR_NOT_FOUND, "no node named '" + record.name + "' in " + display_name(model));
  auto& doc = model.hierarchy;
  if (!doc.modules.empty() && !doc.find_module(record.module))
    fail(MX_ERR_SCHEMA, "record.module: '" + record.module + "' is not in the module tree");
  if (record.tag.empty())
    if (const auto* m = doc.find_module(record.module)) record.tag = m->tag;
  if (auto* existing = doc.find_record(record.name)) {
    *existing = std::move(record);
  } else {
    doc.nodes.push_back(std::move(record));
    sort_in_graph_order(doc, index);
  }
}

}  // namespace modelexport::model
