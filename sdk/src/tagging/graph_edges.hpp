// The edges of a graph view and its order, built once per propagation:
// which node produces each value, every node's producers and consumers,
// and the stable topological order (mx::common::stable_topological_order).
#pragma once
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tagging/graph_topology.hpp"

namespace modelexport {

using Neighbours = std::vector<std::vector<size_t>>;

struct Edges {
  Neighbours producers;  // nodes whose outputs a node reads
  Neighbours consumers;  // nodes reading a node's outputs
};

// Value name → the first node producing it. Hashed, keyed by views into
// the graph (valid as long as `graph` is).
using ProducerMap = std::unordered_map<std::string_view, size_t>;

ProducerMap producer_map(const GraphView& graph);
// Sorted, without duplicates or self edges.
Edges edges_of(const GraphView& graph, const ProducerMap& producer_of);

// Kahn's algorithm, ties broken by node index so the order is deterministic;
// nodes on a cycle (invalid ONNX) follow in index order.
std::vector<size_t> topological_order(const GraphView& graph);
std::vector<size_t> topological_order(const GraphView& graph, const Edges& e);

}  // namespace modelexport
