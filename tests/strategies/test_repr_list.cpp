// Unit tests of the Python-repr list parser used for dynamo's metadata.
#include <doctest/doctest.h>

#include "repr_list.hpp"

using mx::metadata::parse_repr_list;
using Items = std::vector<std::string>;

TEST_CASE("repr lists as the dynamo exporter writes them") {
  SUBCASE("typical name_scopes") {
    auto r = parse_repr_list("['', 'layers.0', 'layers.0.attention', 'linear']");
    REQUIRE(r.ok);
    CHECK(r.items == Items{"", "layers.0", "layers.0.attention", "linear"});
  }
  SUBCASE("empty list, with and without spaces") {
    CHECK(parse_repr_list("[]").ok);
    CHECK(parse_repr_list("[]").items.empty());
    CHECK(parse_repr_list("  [ ]  ").ok);
  }
  SUBCASE("double quotes when the text holds a single quote") {
    auto r = parse_repr_list(R"(["it's", 'a'])");
    REQUIRE(r.ok);
    CHECK(r.items == Items{"it's", "a"});
  }
  SUBCASE("escapes") {
    auto r = parse_repr_list(R"(['a\'b', 'c\\d', 'e\nf', '\x41\u00e9\U0001F600', '\101'])");
    REQUIRE(r.ok);
    CHECK(r.items == Items{"a'b", "c\\d", "e\nf", "A\xC3\xA9\xF0\x9F\x98\x80", "A"});
  }
  SUBCASE("unknown escapes are kept verbatim, as Python does") {
    auto r = parse_repr_list(R"(['\q'])");
    REQUIRE(r.ok);
    CHECK(r.items == Items{"\\q"});
  }
  SUBCASE("trailing comma and tuples") {
    CHECK(parse_repr_list("['a',]").items == Items{"a"});
    CHECK(parse_repr_list("('a', 'b')").items == Items{"a", "b"});
  }
  SUBCASE("raw UTF-8 passes through") {
    CHECK(parse_repr_list("['caf\xC3\xA9']").items == Items{"caf\xC3\xA9"});
  }
}

TEST_CASE("malformed repr lists fail with a message, never throw") {
  const char* bad[] = {
      "",                 // nothing
      "'a'",              // not a list
      "['a'",             // unterminated list
      "['a",              // unterminated string
      "['a' 'b']",        // missing comma
      "['a',, 'b']",      // empty item
      "[a]",              // bare word
      "[None]",           // not a string
      "['a'] trailing",   // junk after the list
      "['\\x4']",         // short hex escape
      "['\\ud800']",      // lone surrogate
      "['\\U00110000']",  // beyond Unicode
      "['a\\",            // dangling backslash
      "['a\nb']",         // raw newline inside a string
      "['a')",            // mismatched brackets
      "[[]]",             // nested list
  };
  for (const char* text : bad) {
    CAPTURE(text);
    auto r = parse_repr_list(text);
    CHECK_FALSE(r.ok);
    CHECK(r.items.empty());
    CHECK_FALSE(r.error.empty());
  }
}

TEST_CASE("embedded NUL bytes and long inputs do not crash") {
  std::string with_nul("['a\0b']", 7);
  auto r = parse_repr_list(with_nul);
  REQUIRE(r.ok);
  CHECK(r.items.front() == std::string("a\0b", 3));
  std::string big = "[";
  for (int i = 0; i < 10000; ++i) big += "'x', ";
  big += "]";
  CHECK(parse_repr_list(big).items.size() == 10000);
}
