// Every scoped node placed at its own scope path: the scope strategy's
// answer when no tree is supplied and the file shows no repeated call
// (file_modules.hpp), where snapping a path onto the modules the file shows
// gives it back unchanged.
//
// One pass over the graph's names. At 200,000 nodes the names lie scattered
// over the host's heap, a cache miss each: the strategy read them three
// times (its paths, the "/Mul" check, the placement) and copied every path
// twice (its own table, then the answer's). Here each name is read once and
// the answer's copy of a path is the only one; the repeated-call question
// reads the paths as views into it.
#pragma once
#include <string_view>
#include <vector>

#include "strategy_plugin.hpp"

namespace mx::scope {

struct PathPlacement {
  mx_strategy::Answer answer;  // scoped nodes at their paths, "/Mul" at the root
  // The paths placed, in node order, a path repeated by the next node
  // listed once: views into `answer` (what shows_repeated_calls_on_paths reads).
  std::vector<std::string_view> paths;
};

PathPlacement place_at_scope_paths(const mx_strategy::Graph& graph);

}  // namespace mx::scope
