#include "mx/common/graph_order.hpp"

#include <functional>
#include <queue>

namespace mx::common {

std::vector<std::size_t> stable_topological_order(const std::vector<std::vector<std::size_t>>& producers,
                                                  const std::vector<std::vector<std::size_t>>& consumers) {
  const std::size_t n = producers.size();
  std::vector<std::size_t> pending(n), order;
  order.reserve(n);
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<std::size_t>> ready;
  for (std::size_t i = 0; i < n; ++i)
    if ((pending[i] = producers[i].size()) == 0) ready.push(i);
  while (!ready.empty()) {
    const std::size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (std::size_t c : consumers[i])
      if (--pending[c] == 0) ready.push(c);
  }
  return order;
}

}  // namespace mx::common
