// The one propagation pass shared by every strategy (docs/tagging.md):
//  1. consumers: an unplaced node takes the deepest common ancestor-or-self
//     of the modules of its placed consumers; nodes are visited in reverse
//     topological order, repeated to a fixed point, so chains of constants
//     and shape ops resolve from the op they finally feed;
//  2. producers: still unplaced nodes take the deepest common module of their
//     placed producers, in topological order, to a fixed point;
//  3. anything left goes to the root "" with evidence "root".
// Nodes placed by 1 or 2 get evidence "propagated". Strategy assignments are
// never changed.
#pragma once
#include "tagging/assignment.hpp"
#include "tagging/graph_view.hpp"

namespace modelexport {

std::vector<Assignment> propagate(const GraphView& graph, Assignments assignments);

// Kahn's algorithm, ties broken by node index so the order is deterministic;
// nodes on a cycle (invalid ONNX) follow in index order.
std::vector<size_t> topological_order(const GraphView& graph);

}  // namespace modelexport
