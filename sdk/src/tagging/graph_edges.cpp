#include "tagging/graph_edges.hpp"

#include <algorithm>
#include <string_view>

#include "mx/common/graph_order.hpp"

#include "util/recent_names.hpp"

namespace mx {
namespace {

// v[start..] sorted, without duplicates (what a std::set per node gave,
// without a tree node per edge).
void sort_unique_from(std::vector<size_t>& v, size_t start) {
  const auto from = v.begin() + static_cast<std::ptrdiff_t>(start);
  std::sort(from, v.end());
  v.erase(std::unique(from, v.end()), v.end());
}

// Interns names; "" is no value.
class Interner {
 public:
  explicit Interner(size_t expected) { ids_.reserve(expected); }
  uint32_t id(std::string_view name) {
    if (name.empty()) return GraphValues::kNone;
    return ids_.intern(name).first;
  }
  uint32_t find(std::string_view name) const { return ids_.find(name); }
  size_t size() const { return ids_.size(); }

 private:
  model::NameIndex ids_;  // views into the graph
};

// Each value's producer and consumers from the nodes' input and output
// lists (`count` values).
void add_producers_and_consumers(GraphValues& v, size_t count) {
  const size_t n = v.input_begin.size() - 1;
  v.producer.assign(count, GraphValues::kNone);
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < v.output_count(i); ++k) {
      const uint32_t id = v.output(i, k);
      if (id != GraphValues::kNone && v.producer[id] == GraphValues::kNone)
        v.producer[id] = static_cast<uint32_t>(i);
    }

  v.consumer_begin.assign(count + 1, 0);
  for (uint32_t id : v.inputs)
    if (id != GraphValues::kNone) ++v.consumer_begin[id + 1];
  for (size_t id = 0; id < count; ++id) v.consumer_begin[id + 1] += v.consumer_begin[id];
  v.consumers.resize(v.consumer_begin.back());
  std::vector<uint32_t> fill(v.consumer_begin.begin(), v.consumer_begin.end() - 1);
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < v.input_count(i); ++k) {
      const uint32_t id = v.input(i, k);
      if (id != GraphValues::kNone) v.consumers[fill[id]++] = static_cast<uint32_t>(i);
    }
}

}  // namespace

GraphValues values_of(const GraphView& graph) {
  const size_t n = graph.nodes.size();
  GraphValues v;
  size_t input_slots = 0, output_slots = 0;
  for (const auto& node : graph.nodes) {
    input_slots += node.input_count;
    output_slots += node.output_count;
  }
  // Values are mostly node outputs, plus the initializers and graph inputs
  // nodes read (a larger guess doubled the flat table for nothing).
  Interner names(output_slots + graph.initializers.size() + 16);
  v.input_begin.reserve(n + 1);
  v.inputs.reserve(input_slots);
  v.output_begin.reserve(n + 1);
  v.outputs.reserve(output_slots);
  RecentNames recent;
  for (size_t i = 0; i < n; ++i) {
    v.input_begin.push_back(static_cast<uint32_t>(v.inputs.size()));
    for (const auto& in : graph.inputs(i)) {
      const uint32_t id = recent.find(in);
      v.inputs.push_back(id != RecentNames::kAbsent ? id : names.id(in));
    }
    v.output_begin.push_back(static_cast<uint32_t>(v.outputs.size()));
    for (const auto& out : graph.outputs(i)) {
      v.outputs.push_back(names.id(out));
      if (!out.empty()) recent.add(out, v.outputs.back());
    }
  }
  v.output_begin.push_back(static_cast<uint32_t>(v.outputs.size()));
  v.input_begin.push_back(static_cast<uint32_t>(v.inputs.size()));

  add_producers_and_consumers(v, names.size());
  v.initializer.assign(names.size(), false);
  for (const auto& name : graph.initializers) {
    const uint32_t id = names.find(name);
    if (id != GraphValues::kNone) v.initializer[id] = true;
  }
  return v;
}

GraphValues values_of(const GraphView& graph, model::ValueTable&& interned) {
  if (!graph.values_as_in_proto || interned.input_begin.size() != graph.nodes.size() + 1)
    return values_of(graph);
  static_assert(GraphValues::kNone == model::ValueTable::kNone, "one mark for an omitted value");
  GraphValues v;
  v.input_begin = std::move(interned.input_begin);
  v.inputs = std::move(interned.inputs);
  v.output_begin = std::move(interned.output_begin);
  v.outputs = std::move(interned.outputs);
  add_producers_and_consumers(v, interned.size());
  v.initializer = std::move(interned.initializer);
  return v;
}

Edges edges_of(const GraphView& graph, const GraphValues& values) {
  const size_t n = graph.nodes.size();
  Edges e;
  e.producers.begin.reserve(n + 1);
  e.producers.items.reserve(values.inputs.size());
  // Each row is appended in place and sorted there (most have one or two
  // producers: a row apart, then copied, was a copy call per node).
  std::vector<size_t>& items = e.producers.items;
  for (size_t i = 0; i < n; ++i) {
    const size_t start = items.size();
    e.producers.begin.push_back(start);
    for (size_t k = 0; k < values.input_count(i); ++k) {
      const uint32_t id = values.input(i, k);
      if (id == GraphValues::kNone) continue;
      const uint32_t p = values.producer[id];
      if (p != GraphValues::kNone && p != i) items.push_back(p);
    }
    if (items.size() - start > 1) sort_unique_from(items, start);
  }
  e.producers.begin.push_back(e.producers.items.size());
  // Consumers: every producer edge reversed; filled in node order, so each
  // list comes out sorted, and distinct as the producer lists are.
  e.consumers.begin.assign(n + 1, 0);
  for (size_t p : e.producers.items) ++e.consumers.begin[p + 1];
  for (size_t i = 0; i < n; ++i) e.consumers.begin[i + 1] += e.consumers.begin[i];
  e.consumers.items.resize(e.producers.items.size());
  std::vector<size_t> fill(e.consumers.begin.begin(), e.consumers.begin.end() - 1);
  for (size_t i = 0; i < n; ++i)
    for (size_t p : e.producers[i]) e.consumers.items[fill[p]++] = i;
  return e;
}

std::vector<size_t> topological_order(const GraphView& graph) {
  return topological_order(graph, edges_of(graph, values_of(graph)));
}

// Nodes on or behind a cycle (a malformed file) follow in file order.
std::vector<size_t> topological_order(const GraphView& graph, const Edges& e) {
  std::vector<size_t> in_degree(graph.nodes.size());
  for (size_t i = 0; i < in_degree.size(); ++i) in_degree[i] = e.producers[i].size();
  std::vector<size_t> order =
      mx::common::stable_topological_order(in_degree, e.consumers.begin, e.consumers.items);
  std::vector<bool> done(graph.nodes.size(), false);
  for (size_t i : order) done[i] = true;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (!done[i]) order.push_back(i);
  return order;
}

}  // namespace mx
