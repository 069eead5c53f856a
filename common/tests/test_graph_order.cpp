#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "mx/common/graph_order.hpp"

using mx::common::stable_topological_order;
using Lists = std::vector<std::vector<size_t>>;

TEST_CASE("graph order: producers first, ties by index") {
  // 0 -> 2, 1 -> 2, 3 independent; 2 reads 0 and 1.
  const Lists producers = {{}, {}, {0, 1}, {}};
  const Lists consumers = {{2}, {2}, {}, {}};
  CHECK(stable_topological_order(producers, consumers) == std::vector<size_t>{0, 1, 2, 3});
}

TEST_CASE("graph order: a node listed before its producer moves after it") {
  const Lists producers = {{1}, {}};
  const Lists consumers = {{}, {0}};
  CHECK(stable_topological_order(producers, consumers) == std::vector<size_t>{1, 0});
}

TEST_CASE("graph order: a cycle leaves its nodes out") {
  const Lists producers = {{1}, {0}, {}};
  const Lists consumers = {{1}, {0}, {}};
  CHECK(stable_topological_order(producers, consumers) == std::vector<size_t>{2});
}

TEST_CASE("graph order over flat lists: the same orders") {
  // 0 -> 2, 1 -> 2, 3 independent; then a cycle 0 <-> 1 beside 2.
  CHECK(stable_topological_order(std::vector<size_t>{0, 0, 2, 0}, std::vector<size_t>{0, 1, 2, 2, 2},
                                 std::vector<size_t>{2, 2}) == std::vector<size_t>{0, 1, 2, 3});
  CHECK(stable_topological_order(std::vector<size_t>{1, 0}, std::vector<size_t>{0, 0, 1},
                                 std::vector<size_t>{0}) == std::vector<size_t>{1, 0});
  CHECK(stable_topological_order(std::vector<size_t>{1, 1, 0}, std::vector<size_t>{0, 1, 2, 2},
                                 std::vector<size_t>{1, 0}) == std::vector<size_t>{2});
}

namespace {

// The definition, slowly: repeatedly place the smallest node whose
// producers are all placed.
std::vector<size_t> reference_order(const Lists& producers) {
  const size_t n = producers.size();
  std::vector<bool> placed(n, false);
  std::vector<size_t> order;
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t i = 0; i < n && !progress; ++i) {
      if (placed[i]) continue;
      bool ready = true;
      for (size_t p : producers[i]) ready = ready && placed[p];
      if (ready) placed[i] = true, order.push_back(i), progress = true;
    }
  }
  return order;
}

}  // namespace

TEST_CASE("graph order: random graphs in file order, shuffled, and with cycles") {
  // In file order (the shortcut: no heap), shuffled (Kahn's heap), and
  // with a back edge (a cycle, or a node listed before its producer).
  std::mt19937 rng(20261125);
  for (int round = 0; round < 300; ++round) {
    CAPTURE(round);
    const size_t n = 1 + rng() % 30;
    std::vector<size_t> label(n);
    for (size_t i = 0; i < n; ++i) label[i] = i;
    if (round % 3 == 1) std::shuffle(label.begin(), label.end(), rng);
    Lists producers(n), consumers(n);
    auto edge = [&](size_t from, size_t to) {
      for (size_t p : producers[to])
        if (p == from) return;
      producers[to].push_back(from);
      consumers[from].push_back(to);
    };
    for (size_t j = 1; j < n; ++j)
      for (size_t k = rng() % 3; k > 0; --k) edge(label[rng() % j], label[j]);
    if (round % 3 == 2 && n > 2) edge(label[n - 1], label[rng() % (n - 1)]);
    const std::vector<size_t> expected = reference_order(producers);
    CHECK(stable_topological_order(producers, consumers) == expected);
    std::vector<size_t> in_degree(n), begin(n + 1, 0), flat;
    for (size_t i = 0; i < n; ++i) {
      in_degree[i] = producers[i].size();
      flat.insert(flat.end(), consumers[i].begin(), consumers[i].end());
      begin[i + 1] = flat.size();
    }
    CHECK(stable_topological_order(in_degree, begin, flat) == expected);
  }
}
