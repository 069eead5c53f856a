// Steps 0 and 1 of propagation (propagation.hpp, docs/tagging.md §3): the
// split into side and data nodes, and the data-path rule that places data
// nodes after their latest placed data producer.
#pragma once
#include <vector>

#include "tagging/assignment.hpp"
#include "tagging/graph_edges.hpp"
#include "tagging/module_facts.hpp"

namespace mx {

// Step 0: a node is "side" when it is Shape/Size or every input is an
// initializer or a side node's output (constants and the shape arithmetic
// computed from them); the others carry an activation from a graph input.
std::vector<bool> side_nodes(const GraphView& g, const GraphValues& values, const std::vector<size_t>& order);

// Step 1: places the unplaced data nodes of `a`, in `order`. `modules`
// holds each placed node's module id (ModuleFacts::Id::none when unknown:
// looked up by path), and gets the ids of the modules placed here.
void place_data_nodes(const GraphView& g, const GraphValues& values, const Edges& e,
                      const std::vector<bool>& side, const std::vector<size_t>& order,
                      const ModuleFacts& facts, Assignments& a, std::vector<ModuleFacts::Id>& modules);

}  // namespace mx
