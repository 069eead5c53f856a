// The one propagation pass shared by every strategy (docs/tagging.md §3).
// Its parts: graph_edges (edges and order), op_classes (op-class tables),
// data_path_rule (steps 0 and 1), propagation.cpp (the sweeps, 2 to 4).
//  0. nodes are split into "side" nodes (constants, shape arithmetic: no
//     activation flows through them) and "data" nodes (an input derives from
//     a graph input through data nodes);
//  1. data nodes, in topological order, follow the module of their latest
//     placed data producer: a leaf module is left once its own ops are done
//     (except layout ops right after a non-built-in leaf's parameter op),
//     pure containers (Sequential, ModuleList) own no ops, a module is left
//     while an input comes from outside it and is not visible in it, never
//     above the deepest module common to that producer and the next placed
//     consumer; a parameter-free child module whose class matches the op
//     (ReLU→Relu, GELU→Erf/Tanh pattern, MaxPool2d→MaxPool, ...) takes it;
//  2. consumers: an unplaced node takes the deepest common ancestor-or-self
//     of the modules of its placed consumers (a built-in leaf with
//     parameters hands it to its parent), reverse topological order, to a
//     fixed point;
//  3. producers: still unplaced nodes take the deepest common module of their
//     placed producers, in topological order, to a fixed point;
//  4. anything left goes to the root "" with evidence "root".
// With forward outlines in the supplied modules (each module's own ops and
// calls in program order, from `modelexport hierarchy`), steps 1 and 2 also
// follow the program: call-only modules own nothing, a module with nothing
// left after a call has returned, an op can start the next callee, a module
// keeps the nodes its own code can produce, a value a callee reads first
// was computed by the caller before the call (docs/tagging.md §3, "1b").
// Nodes placed by 1-3 get evidence "propagated". Strategy assignments are
// never changed.
#pragma once
#include <nlohmann/json.hpp>

#include "model/value_table.hpp"
#include "tagging/assignment.hpp"
#include "tagging/graph_topology.hpp"
#include "tagging/rebuilt_tree.hpp"

namespace mx {

// `modules`: the "modules" array of a supplied hierarchy (path, class,
// qualified_class, parameters, own_parameters, children, forward), already
// validated by load_supplied_hierarchy, or an empty array /
// null: the tree is then rebuilt from the placed paths, every class is
// unknown and a leaf "has parameters" when a node was placed in it with
// evidence "parameter". The answer: `assignments`, every slot placed.
std::vector<Assignment> propagate(const GraphView& graph, Assignments assignments,
                                  const nlohmann::json& modules = nlohmann::json());
// The same with the supplied modules as the tree holds them (its supplied
// entries; none for a tree without a supplied hierarchy).
std::vector<Assignment> propagate(const GraphView& graph, Assignments assignments, const ModuleTree& modules);
// The same with the graph's values already interned from the proto `graph`
// was read from (the tagger's, after the structure check read them); taken.
std::vector<Assignment> propagate(const GraphView& graph, model::ValueTable&& interned,
                                  Assignments assignments, const ModuleTree& modules);

}  // namespace mx
