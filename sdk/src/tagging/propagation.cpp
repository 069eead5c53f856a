// Steps 2 to 4 of propagation (propagation.hpp): the sweeps to a fixed
// point over consumers, then producers, then the root; steps 0 and 1 are
// data_path_rule.cpp.
#include "tagging/propagation.hpp"

#include <algorithm>
#include <optional>

#include "mx/common/module_path.hpp"
#include "tagging/data_path_rule.hpp"
#include "tagging/graph_edges.hpp"
#include "tagging/module_facts.hpp"
#include "tagging/op_classes.hpp"

namespace mx {
namespace {

using json = nlohmann::json;
using Id = ModuleFacts::Id;
using Ref = ModuleFacts::Ref;

// Common module of the placed neighbours, or nothing if none is placed.
// A view into a neighbour's module or the facts: placed slots are never
// reassigned, so it stays valid while the sweep places other nodes (a
// string per node and neighbour was most of the sweeps' allocations).
std::optional<Ref> common_module(Neighbours::Span neighbours, const Assignments& a,
                                 const std::vector<Id>& modules, const ModuleFacts& facts) {
  std::optional<Ref> common;
  for (size_t n : neighbours) {
    if (!a[n].placed()) continue;
    const Ref here(a[n].module, modules[n]);
    common = common ? facts.common_ancestor(*common, here) : here;
  }
  return common;
}

// Step 2 with outlines: when the consumers' module `m` cannot have produced
// the op (its own code has no such op), the one module `m` calls whose own
// code can (a rotary embedding's Cos/Sin, read by every layer, computed by
// the module the root calls for them). Unchanged otherwise (why not an
// ancestor instead: docs/tagging.md, "Cases behind the rules").
// The answer views `m` or an outline's step (both outlive the sweep).
Ref callee_that_runs(const ModuleFacts& facts, std::string_view op, Ref m) {
  using Answer = ModuleFacts::Answer;
  const Outline* o = facts.outline(m);
  // Arithmetic is in nearly every module's code: one callee that has an `add`
  // says nothing (a mask + position bias is not a final norm's eps).
  if (!o || is_glue(op) || is_arithmetic(op) || facts.can_run(m, op) != Answer::no) return m;
  std::string_view found;
  for (const Step& s : *o) {
    if (!s.call || s.name == found || facts.closed_leaf(s.name) || facts.can_run(s.name, op) != Answer::yes)
      continue;
    if (!found.empty()) return m;  // two candidates: no guess
    found = s.name;
  }
  return found.empty() ? m : Ref(found);
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
Ref caller_that_computes(const ModuleFacts& facts, std::string_view op, Ref m, std::string_view branch) {
  using Answer = ModuleFacts::Answer;
  Ref cur = m;
  std::string_view below = branch;
  for (;;) {
    const Answer here = facts.can_run_before_call(cur, below, op);
    if (here == Answer::yes) return cur;
    if (here == Answer::unknown || cur.path.empty()) return m;
    below = cur.path;
    cur = facts.parent(cur);
    while (!cur.path.empty() && facts.is_container(cur) && !facts.outline(cur)) cur = facts.parent(cur);
  }
}

// Visits `order`, placing every unplaced node from `neighbours`, until a
// whole sweep places nothing. `adjust(node, module)` may move the module
// found (e.g. out of a built-in leaf). Monotone, so it terminates.
// `pending`: the unplaced nodes in the sweep's order; what it places leaves
// the list (each sweep visited every node, placed or not, at least twice).
template <class Adjust>
void sweep_to_fixed_point(std::vector<size_t>& pending, const Neighbours& neighbours, Assignments& a,
                          std::vector<Id>& modules, const ModuleFacts& facts, Adjust adjust) {
  for (bool changed = true; changed;) {
    changed = false;
    size_t kept = 0;
    for (size_t n : pending) {
      if (auto m = common_module(neighbours[n], a, modules, facts)) {
        const Ref placed = adjust(n, *m);
        a[n] = Assignment{std::string(placed.path), hierarchy::Evidence::propagated};
        modules[n] = placed.id;
        changed = true;
      } else {
        pending[kept++] = n;
      }
    }
    pending.resize(kept);
  }
}

// The unplaced nodes of `order`, in it or (`reversed`) in reverse.
std::vector<size_t> unplaced(const std::vector<size_t>& order, const Assignments& a, bool reversed) {
  std::vector<size_t> out;
  auto keep = [&](size_t n) {
    if (!a[n].placed()) out.push_back(n);
  };
  if (reversed) std::for_each(order.rbegin(), order.rend(), keep);
  else std::for_each(order.begin(), order.end(), keep);
  return out;
}

}  // namespace

namespace {

// Steps 0 to 3 on `a`; `modules` holds the ids of the placed nodes' modules.
void place_all(const GraphView& graph, GraphValues values, Assignments& a, const ModuleFacts& facts,
               std::vector<Id> modules) {
  const Edges e = edges_of(graph, values);
  const std::vector<size_t> order = topological_order(graph, e);
  const std::vector<bool> side = side_nodes(graph, values, order);
  place_data_nodes(graph, values, e, side, order, facts, a, modules);
  // The adjustments answer views into the facts (owning's answers, their
  // prefixes, outline steps), which outlive the sweeps.
  std::vector<size_t> pending = unplaced(order, a, true);
  sweep_to_fixed_point(pending, e.consumers, a, modules, facts, [&](size_t n, Ref m) {
    const std::string_view op = graph.nodes[n].op_type;
    const Ref owner = facts.owning(facts.closed_leaf(m) ? facts.parent(m) : m);
    if (!side[n]) {
      const Ref caller = caller_that_computes(facts, op, owner, m.path);
      if (caller.path != owner.path) return caller;
    }
    return callee_that_runs(facts, op, owner);
  });
  pending = unplaced(order, a, false);
  sweep_to_fixed_point(pending, e.producers, a, modules, facts,
                       [&](size_t, Ref m) { return facts.owning(m); });
}

// Steps 0 to 3, then step 4. The answer is `a` itself, every slot placed
// (no second vector of 200,000 assignments, each string moved into it).
template <class Modules>
std::vector<Assignment> propagate_with(const GraphView& graph, GraphValues values, Assignments a,
                                       const Modules& supplied) {
  {
    ModuleFacts facts(supplied, a);
    std::vector<Id> modules = facts.take_node_modules();
    place_all(graph, std::move(values), a, facts, std::move(modules));
  }
  for (Assignment& slot : a)
    if (!slot.placed()) slot = Assignment{"", hierarchy::Evidence::root};
  return a;
}

}  // namespace

std::vector<Assignment> propagate(const GraphView& graph, Assignments a, const json& modules) {
  return propagate_with(graph, values_of(graph), std::move(a), modules);
}

std::vector<Assignment> propagate(const GraphView& graph, Assignments a, const ModuleTree& modules) {
  return propagate_with(graph, values_of(graph), std::move(a), modules);
}

std::vector<Assignment> propagate(const GraphView& graph, model::ValueTable&& interned, Assignments a,
                                  const ModuleTree& modules) {
  return propagate_with(graph, values_of(graph, std::move(interned)), std::move(a), modules);
}

}  // namespace mx
