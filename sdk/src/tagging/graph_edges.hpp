// The edges of a graph view and its order, built once per propagation:
// every value name interned once (GraphValues: which node produces each
// value, which nodes read it, which are initializers), every node's
// producers and consumers, and the stable topological order
// (mx::common::stable_topological_order). Propagation then works on ids:
// at 200,000 nodes, hashing each name again in every pass (producer map,
// edges, side nodes, value consumers) was most of its time.
#pragma once
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "model/value_table.hpp"
#include "tagging/graph_topology.hpp"

namespace mx {

// Node → its neighbours, sorted and distinct, in one flat list (a vector
// per node was 400,000 allocations at 200,000 nodes).
struct Neighbours {
  struct Span {
    const size_t *b, *e;
    const size_t* begin() const { return b; }
    const size_t* end() const { return e; }
    size_t size() const { return static_cast<size_t>(e - b); }
    bool empty() const { return b == e; }
  };
  std::vector<size_t> begin;  // node → start in `items`; one more entry than nodes
  std::vector<size_t> items;
  Span operator[](size_t node) const { return {items.data() + begin[node], items.data() + begin[node + 1]}; }
  size_t size() const { return begin.empty() ? 0 : begin.size() - 1; }
};

struct Edges {
  Neighbours producers;  // nodes whose outputs a node reads
  Neighbours consumers;  // nodes reading a node's outputs
};

// A graph view's value names as dense ids, lists in flat arrays (`begin`
// holds each row's start, one more entry than rows).
struct GraphValues {
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> input_begin, inputs;        // node → its inputs' ids (kNone: omitted "")
  std::vector<uint32_t> output_begin, outputs;      // node → its outputs' ids (kNone: "")
  std::vector<uint32_t> producer;                   // value → the first node producing it, or kNone
  std::vector<uint32_t> consumer_begin, consumers;  // value → nodes reading it, once per input slot
  std::vector<bool> initializer;                    // value → named by the graph's initializers

  uint32_t input(size_t node, size_t i) const { return inputs[input_begin[node] + i]; }
  uint32_t output(size_t node, size_t k) const { return outputs[output_begin[node] + k]; }
  size_t output_count(size_t node) const { return output_begin[node + 1] - output_begin[node]; }
  size_t input_count(size_t node) const { return input_begin[node + 1] - input_begin[node]; }
};

GraphValues values_of(const GraphView& graph);
// The same from the graph's values already interned from its proto (the
// tagger's, shared with the structure check), taking its lists; interned
// again from `graph` when its names are not the proto's own
// (GraphView::values_as_in_proto: a replaced invalid UTF-8 name can merge
// two of the proto's values into one of the view's).
GraphValues values_of(const GraphView& graph, model::ValueTable&& interned);
// Sorted, without duplicates or self edges.
Edges edges_of(const GraphView& graph, const GraphValues& values);

// Kahn's algorithm, ties broken by node index so the order is deterministic;
// nodes on a cycle (invalid ONNX) follow in index order.
std::vector<size_t> topological_order(const GraphView& graph);
std::vector<size_t> topological_order(const GraphView& graph, const Edges& e);

}  // namespace mx
