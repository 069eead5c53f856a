#include "tagging/propagation.hpp"

#include <map>
#include <queue>
#include <set>

#include "tagging/evidence.hpp"
#include "tagging/module_path.hpp"

namespace modelexport {
namespace {

using Neighbours = std::vector<std::vector<size_t>>;

struct Edges {
  Neighbours producers;  // nodes whose outputs a node reads
  Neighbours consumers;  // nodes reading a node's outputs
};

Edges edges_of(const GraphView& graph) {
  std::map<std::string, size_t> producer_of;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (const auto& out : graph.nodes[i].outputs)
      if (!out.empty()) producer_of.emplace(out, i);
  std::vector<std::set<size_t>> prod(graph.nodes.size()), cons(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (const auto& in : graph.nodes[i].inputs) {
      auto it = producer_of.find(in);
      if (in.empty() || it == producer_of.end() || it->second == i) continue;
      prod[i].insert(it->second);
      cons[it->second].insert(i);
    }
  Edges e;
  for (auto& s : prod) e.producers.emplace_back(s.begin(), s.end());
  for (auto& s : cons) e.consumers.emplace_back(s.begin(), s.end());
  return e;
}

// Common module of the placed neighbours, or nothing if none is placed.
std::optional<std::string> common_module(const std::vector<size_t>& neighbours,
                                         const Assignments& a) {
  std::optional<std::string> common;
  for (size_t n : neighbours) {
    if (!a[n]) continue;
    common = common ? common_ancestor(*common, a[n]->module) : a[n]->module;
  }
  return common;
}

// Visits `order`, placing every unplaced node from `neighbours`, until a
// whole sweep places nothing. Monotone (placed nodes never change), so it
// terminates; with a true topological order the first sweep already is the
// fixed point.
void sweep_to_fixed_point(const std::vector<size_t>& order, const Neighbours& neighbours,
                          Assignments& a) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t n : order) {
      if (a[n]) continue;
      if (auto m = common_module(neighbours[n], a)) {
        a[n] = Assignment{*m, kEvidencePropagated};
        changed = true;
      }
    }
  }
}

}  // namespace

std::vector<size_t> topological_order(const GraphView& graph) {
  Edges e = edges_of(graph);
  const size_t n = graph.nodes.size();
  std::vector<size_t> pending(n), order;
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < n; ++i)
    if ((pending[i] = e.producers[i].size()) == 0) ready.push(i);
  std::vector<bool> done(n, false);
  while (!ready.empty()) {
    size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    done[i] = true;
    for (size_t c : e.consumers[i])
      if (--pending[c] == 0) ready.push(c);
  }
  for (size_t i = 0; i < n; ++i)
    if (!done[i]) order.push_back(i);
  return order;
}

std::vector<Assignment> propagate(const GraphView& graph, Assignments a) {
  Edges e = edges_of(graph);
  std::vector<size_t> order = topological_order(graph);
  std::vector<size_t> reversed(order.rbegin(), order.rend());
  sweep_to_fixed_point(reversed, e.consumers, a);
  sweep_to_fixed_point(order, e.producers, a);
  std::vector<Assignment> out;
  out.reserve(a.size());
  for (auto& slot : a) out.push_back(slot ? *slot : Assignment{"", kEvidenceRoot});
  return out;
}

}  // namespace modelexport
