#include "mx/common/graph_order.hpp"

#include <functional>
#include <queue>

namespace mx::common {

namespace {

// Kahn's algorithm; `pending` holds each node's producer count,
// `each_consumer(i, f)` calls f on node i's consumers.
template <class EachConsumer>
std::vector<std::size_t> kahn(std::vector<std::size_t> pending, EachConsumer each_consumer) {
  const std::size_t n = pending.size();
  std::vector<std::size_t> order;
  order.reserve(n);
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<std::size_t>> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push(i);
  while (!ready.empty()) {
    const std::size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    each_consumer(i, [&](std::size_t c) {
      if (--pending[c] == 0) ready.push(c);
    });
  }
  return order;
}

}  // namespace

std::vector<std::size_t> stable_topological_order(const std::vector<std::vector<std::size_t>>& producers,
                                                  const std::vector<std::vector<std::size_t>>& consumers) {
  std::vector<std::size_t> pending(producers.size());
  for (std::size_t i = 0; i < producers.size(); ++i) pending[i] = producers[i].size();
  return kahn(std::move(pending), [&](std::size_t i, auto f) {
    for (std::size_t c : consumers[i]) f(c);
  });
}

std::vector<std::size_t> stable_topological_order(const std::vector<std::size_t>& in_degree,
                                                  const std::vector<std::size_t>& consumer_begin,
                                                  const std::vector<std::size_t>& consumers) {
  return kahn(in_degree, [&](std::size_t i, auto f) {
    for (std::size_t k = consumer_begin[i]; k < consumer_begin[i + 1]; ++k) f(consumers[k]);
  });
}

}  // namespace mx::common
