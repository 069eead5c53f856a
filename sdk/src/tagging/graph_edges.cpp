#include "tagging/graph_edges.hpp"

#include <algorithm>

#include "mx/common/graph_order.hpp"

namespace modelexport {
namespace {

// Sorted, without duplicates (what a std::set per node gave, without a
// tree node per edge).
void sort_unique(std::vector<size_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

ProducerMap producer_map(const GraphView& graph) {
  ProducerMap producer_of;
  producer_of.reserve(graph.nodes.size() * 2);
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (const auto& out : graph.nodes[i].outputs)
      if (!out.empty()) producer_of.emplace(out, i);
  return producer_of;
}

Edges edges_of(const GraphView& graph, const ProducerMap& producer_of) {
  Edges e;
  e.producers.resize(graph.nodes.size());
  e.consumers.resize(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (const auto& in : graph.nodes[i].inputs) {
      if (in.empty()) continue;
      auto it = producer_of.find(in);
      if (it == producer_of.end() || it->second == i) continue;
      e.producers[i].push_back(it->second);
      e.consumers[it->second].push_back(i);
    }
  for (auto& v : e.producers) sort_unique(v);
  for (auto& v : e.consumers) sort_unique(v);
  return e;
}

std::vector<size_t> topological_order(const GraphView& graph) {
  return topological_order(graph, edges_of(graph, producer_map(graph)));
}

// Nodes on or behind a cycle (a malformed file) follow in file order.
std::vector<size_t> topological_order(const GraphView& graph, const Edges& e) {
  std::vector<size_t> order = mx::common::stable_topological_order(e.producers, e.consumers);
  std::vector<bool> done(graph.nodes.size(), false);
  for (size_t i : order) done[i] = true;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (!done[i]) order.push_back(i);
  return order;
}

}  // namespace modelexport
