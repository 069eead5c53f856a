// PathTable, the module indexes' hash table: what std::unordered_map
// would answer, across growth, for the root's empty path and for keys
// that differ only late.
#include <doctest/doctest.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "hierarchy/path_table.hpp"

using mx::hierarchy::PathTable;

TEST_CASE("path table: inserts, finds and keeps the first position, like a map") {
  std::vector<std::string> keys = {"", "a", "a.b", "a.b.c", "encoder.layer.10", "encoder.layer.1"};
  for (int i = 0; i < 5000; ++i) keys.push_back("block" + std::to_string(i % 3000) + ".leaf");
  PathTable table;
  std::unordered_map<std::string, size_t> expected;
  for (size_t i = 0; i < keys.size(); ++i) {
    const size_t first = expected.emplace(keys[i], i).first->second;
    CHECK(table.insert(keys[i], i) == first);
  }
  CHECK(table.size() == expected.size());
  for (const auto& [key, position] : expected) CHECK(table.find(key) == position);
  CHECK(table.find("block3000.leaf") == PathTable::kNone);
  CHECK_FALSE(table.contains("a.b.c.d"));
  CHECK(table.contains(""));
  table.clear();
  CHECK(table.size() == 0);
  CHECK(table.find("a") == PathTable::kNone);
}

TEST_CASE("path table: an empty table finds nothing; reserve keeps entries") {
  PathTable table;
  CHECK(table.find("") == PathTable::kNone);
  const std::string a = "x", b = "y";
  table.insert(a, 0);
  table.reserve(1000);
  table.insert(b, 1);
  CHECK(table.find("x") == 0);
  CHECK(table.find("y") == 1);
}
