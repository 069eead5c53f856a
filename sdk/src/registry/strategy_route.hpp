// Routes mx_host_api.graph and mx_host_api.answer (plugin ABI 1.2) to the
// tagging call that is running a strategy. Like progress
// (plugin_progress.hpp), the host table is one stateless process-wide
// table, so the route is per thread: a strategy asks from the thread
// executing its `run`, while that call is inside a StrategyRouteScope.
#pragma once
#include "modelexport/plugin.h"

namespace mx {

class StrategyRouteScope {
 public:
  StrategyRouteScope(const mx_graph_reader* graph, const mx_strategy_answer* answer) noexcept;
  ~StrategyRouteScope();
  StrategyRouteScope(const StrategyRouteScope&) = delete;
  StrategyRouteScope& operator=(const StrategyRouteScope&) = delete;

 private:
  const mx_graph_reader* outer_graph_;  // scopes nest (a plugin run inside another's call)
  const mx_strategy_answer* outer_answer_;
};

// The reader / answer sink of the run executing on this thread, or NULL
// (no run, or a run whose request carries the graph as JSON).
const mx_graph_reader* host_graph(void* host_context) noexcept;
const mx_strategy_answer* host_answer(void* host_context) noexcept;

}  // namespace mx
