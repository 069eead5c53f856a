// model::NameIndex (value names, module paths): dense ids in first-added
// order, found again after the table grows, and the same answers as a
// std::unordered_map for names that share prefixes and hash slots.
#include <doctest/doctest.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "model/name_index.hpp"

using mx::model::NameIndex;

TEST_CASE("name index: ids in first-added order, found again, kNone for the unknown") {
  NameIndex index;
  CHECK(index.find("a") == NameIndex::kNone);  // empty: no table yet
  CHECK(index.intern("a") == std::pair<uint32_t, bool>{0, true});
  CHECK(index.intern("b") == std::pair<uint32_t, bool>{1, true});
  CHECK(index.intern("a") == std::pair<uint32_t, bool>{0, false});
  CHECK(index.find("b") == 1);
  CHECK(index.find("c") == NameIndex::kNone);
  CHECK(index.size() == 2);
  CHECK(index.name(1) == "b");
  // "" is a name like any other here (callers decide what it means).
  CHECK(index.intern("") == std::pair<uint32_t, bool>{2, true});
  CHECK(index.find("") == 2);
}

TEST_CASE("name index: 100,000 names across growth agree with unordered_map") {
  // Names kept in a vector sized up front: the index holds views.
  std::vector<std::string> names;
  names.reserve(100000);
  for (int i = 0; i < 100000; ++i)
    names.push_back(i % 3 ? "encoder.layer." + std::to_string(i / 3) + (i % 3 == 1 ? ".dense" : ".act")
                          : "v" + std::to_string(i));
  for (size_t reserved : {size_t(0), size_t(1000), size_t(100000)}) {
    CAPTURE(reserved);
    NameIndex index;
    index.reserve(reserved);
    std::unordered_map<std::string, uint32_t> expected;
    for (const auto& n : names) {
      // Each name twice in a row, then every earlier one is still found.
      const auto [id, fresh] = index.intern(n);
      const auto [at, added] = expected.emplace(n, static_cast<uint32_t>(expected.size()));
      REQUIRE(fresh == added);
      REQUIRE(id == at->second);
      REQUIRE(index.intern(n).first == id);
    }
    CHECK(index.size() == expected.size());
    for (const auto& [n, id] : expected) REQUIRE(index.find(n) == id);
    CHECK(index.find("encoder.layer.1") == NameIndex::kNone);  // a prefix of names, not one
    CHECK(index.find("v100000") == NameIndex::kNone);
  }
}

TEST_CASE("name index: repoint keeps the id, reading the new copy") {
  std::string first = "encoder.layer.0.dense", copy = first;
  NameIndex index;
  const uint32_t id = index.intern(first).first;
  index.repoint(id, copy);
  first.assign(first.size(), 'x');  // the old text may now change or go
  CHECK(index.find("encoder.layer.0.dense") == id);
  CHECK(index.name(id).data() == copy.data());
  index.prefetch("anything");  // a hint: no effect on answers
  CHECK(index.find("anything") == NameIndex::kNone);
}
