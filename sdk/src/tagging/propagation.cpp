// Steps 2 to 4 of propagation (propagation.hpp): the sweeps to a fixed
// point over consumers, then producers, then the root; steps 0 and 1 are
// data_path_rule.cpp.
#include "tagging/propagation.hpp"

#include <optional>

#include "mx/common/module_path.hpp"
#include "tagging/data_path_rule.hpp"
#include "tagging/strategy_evidence.hpp"
#include "tagging/graph_edges.hpp"
#include "tagging/module_facts.hpp"
#include "tagging/op_classes.hpp"

namespace modelexport {
using mx::common::common_ancestor_view;
using mx::common::parent_view;
namespace {

using json = nlohmann::json;

// Common module of the placed neighbours, or nothing if none is placed.
// A view into a neighbour's module: placed slots are never reassigned, so
// it stays valid while the sweep places other nodes (a string per node
// and neighbour was most of the sweeps' allocations).
std::optional<std::string_view> common_module(Neighbours::Span neighbours,
                                              const Assignments& a) {
  std::optional<std::string_view> common;
  for (size_t n : neighbours) {
    if (!a[n]) continue;
    common = common ? common_ancestor_view(*common, a[n]->module) : std::string_view(a[n]->module);
  }
  return common;
}

// Step 2 with outlines: when the consumers' module `m` cannot have produced
// the op (its own code has no such op), the one module `m` calls whose own
// code can (a rotary embedding's Cos/Sin, read by every layer, computed by
// the module the root calls for them). Unchanged otherwise (why not an
// ancestor instead: docs/tagging.md, "Cases behind the rules").
// The answer views `m` or an outline's step (both outlive the sweep).
std::string_view callee_that_runs(const ModuleFacts& facts, std::string_view op, std::string_view m) {
  using Answer = ModuleFacts::Answer;
  const Outline* o = facts.outline(m);
  // Arithmetic is in nearly every module's code: one callee that has an `add`
  // says nothing (a mask + position bias is not a final norm's eps).
  if (!o || is_glue(op) || is_arithmetic(op) || facts.can_run(m, op) != Answer::no) return m;
  std::string_view found;
  for (const Step& s : *o) {
    if (!s.call || s.name == found || facts.closed_leaf(s.name) ||
        facts.can_run(s.name, op) != Answer::yes)
      continue;
    if (!found.empty()) return m;  // two candidates: no guess
    found = s.name;
  }
  return found.empty() ? m : found;
}

// Step 2 with outlines, for a data node: a value the code of module `m`
// reads in (or below) `branch` must exist before that code runs. When `m`'s
// own ops before it calls into `branch` cannot produce the node's op, the
// node ran in a caller before the call: the nearest caller whose own ops
// before it can (token shifting in the model's forward feeds only the
// decoder's embedding, and the decoder runs nothing but `size` before it
// calls the embedding; an encoder's own `input_ids.view(...)` stays the
// encoder's). `m` is kept when an outline is missing, an answer is unknown,
// or no caller can.
// The answer views `m` (a caller is a prefix of it).
std::string_view caller_that_computes(const ModuleFacts& facts, std::string_view op,
                                      std::string_view m, std::string_view branch) {
  using Answer = ModuleFacts::Answer;
  std::string_view cur = m, below = branch;
  for (;;) {
    const Answer here = facts.can_run_before_call(cur, below, op);
    if (here == Answer::yes) return cur;
    if (here == Answer::unknown || cur.empty()) return m;
    below = cur;
    cur = parent_view(cur);
    while (!cur.empty() && facts.is_container(cur) && !facts.outline(cur)) cur = parent_view(cur);
  }
}

// Visits `order`, placing every unplaced node from `neighbours`, until a
// whole sweep places nothing. `adjust(node, module)` may move the module
// found (e.g. out of a built-in leaf). Monotone, so it terminates.
template <class Adjust>
void sweep_to_fixed_point(const std::vector<size_t>& order, const Neighbours& neighbours,
                          Assignments& a, Adjust adjust) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t n : order) {
      if (a[n]) continue;
      if (auto m = common_module(neighbours[n], a)) {
        a[n] = Assignment{std::string(adjust(n, *m)), kEvidencePropagated};
        changed = true;
      }
    }
  }
}

}  // namespace

namespace {

std::vector<Assignment> propagate_with(const GraphView& graph, const GraphValues& values, Assignments a,
                                       const ModuleFacts& facts) {
  const Edges e = edges_of(graph, values);
  std::vector<size_t> order = topological_order(graph, e);
  std::vector<size_t> reversed(order.rbegin(), order.rend());
  const std::vector<bool> side = side_nodes(graph, values, order);
  place_data_nodes(graph, values, e, side, order, facts, a);
  // The adjustments answer views into the facts (owning's answers, their
  // prefixes, outline steps), which outlive the sweeps.
  sweep_to_fixed_point(reversed, e.consumers, a, [&](size_t n, std::string_view m) {
    const std::string& op = graph.nodes[n].op_type;
    const std::string_view owner = facts.owning(facts.closed_leaf(m) ? parent_view(m) : m);
    if (!side[n]) {
      const std::string_view caller = caller_that_computes(facts, op, owner, m);
      if (caller != owner) return caller;
    }
    return callee_that_runs(facts, op, owner);
  });
  sweep_to_fixed_point(order, e.producers, a, [&](size_t, std::string_view m) { return facts.owning(m); });
  std::vector<Assignment> out;
  out.reserve(a.size());
  for (auto& slot : a) out.push_back(slot ? std::move(*slot) : Assignment{"", kEvidenceRoot});
  return out;
}

}  // namespace

std::vector<Assignment> propagate(const GraphView& graph, Assignments a, const json& modules) {
  const ModuleFacts facts(modules, a);
  return propagate_with(graph, values_of(graph), std::move(a), facts);
}

std::vector<Assignment> propagate(const GraphView& graph, Assignments a, const ModuleTree& modules) {
  const ModuleFacts facts(modules, a);
  return propagate_with(graph, values_of(graph), std::move(a), facts);
}

std::vector<Assignment> propagate(const GraphView& graph, model::ValueTable&& interned, Assignments a,
                                  const ModuleTree& modules) {
  const ModuleFacts facts(modules, a);
  return propagate_with(graph, values_of(graph, std::move(interned)), std::move(a), facts);
}

}  // namespace modelexport
