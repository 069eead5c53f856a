// Stable topological order of a graph given as index lists (Kahn's
// algorithm, ties broken by the smaller index, i.e. file order): the one
// implementation behind the functions pass (ONNX nodes after rewriting) and
// tag propagation. std only.
#pragma once
#include <cstddef>
#include <vector>

namespace mx::common {

// `producers[i]` / `consumers[i]`: the distinct nodes node i reads from /
// that read node i (no self edges). Returns the nodes that can be ordered;
// on a cycle the nodes on or behind it are missing, so a caller compares the
// size with the node count and decides (fail, or append the rest).
std::vector<std::size_t> stable_topological_order(const std::vector<std::vector<std::size_t>>& producers,
                                                  const std::vector<std::vector<std::size_t>>& consumers);
// The same over flat lists (no vector per node): `in_degree[i]` is the
// number of distinct producers of node i, and its distinct consumers are
// consumers[consumer_begin[i] .. consumer_begin[i + 1]).
std::vector<std::size_t> stable_topological_order(const std::vector<std::size_t>& in_degree,
                                                  const std::vector<std::size_t>& consumer_begin,
                                                  const std::vector<std::size_t>& consumers);

}  // namespace mx::common
