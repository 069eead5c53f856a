#include <doctest/doctest.h>

#include "tagging/auto_order.hpp"

using mx::auto_strategy_order;

TEST_CASE("auto order: metadata > scope > usage > others alphabetically") {
  CHECK(auto_strategy_order({"zeta", "usage", "alpha", "scope", "metadata"}) ==
        std::vector<std::string>{"metadata", "scope", "usage", "alpha", "zeta"});
  CHECK(auto_strategy_order({"regex", "scope"}) == std::vector<std::string>{"scope", "regex"});
  CHECK(auto_strategy_order({}).empty());
}
