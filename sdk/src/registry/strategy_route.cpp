#include "registry/strategy_route.hpp"

namespace mx {
namespace {

thread_local const mx_graph_reader* current_graph = nullptr;
thread_local const mx_strategy_answer* current_answer = nullptr;

}  // namespace

StrategyRouteScope::StrategyRouteScope(const mx_graph_reader* graph,
                                       const mx_strategy_answer* answer) noexcept
    : outer_graph_(current_graph), outer_answer_(current_answer) {
  current_graph = graph;
  current_answer = answer;
}

StrategyRouteScope::~StrategyRouteScope() {
  current_graph = outer_graph_;
  current_answer = outer_answer_;
}

const mx_graph_reader* host_graph(void* /*host_context*/) noexcept {
  return current_graph;
}
const mx_strategy_answer* host_answer(void* /*host_context*/) noexcept {
  return current_answer;
}

}  // namespace mx
