#include <doctest/doctest.h>

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
