#include <doctest/doctest.h>

#include <string>

#include "mx/common/json_limits.hpp"

using mx::common::json_limit_violation;
using mx::common::kMaxJsonDepth;
using mx::common::kMaxJsonStringBytes;

namespace {
std::string nested(int depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}
std::string quoted(size_t n, char c = 'a') {
  return "\"" + std::string(n, c) + "\"";
}
}  // namespace

TEST_CASE("json limits: depth counts brackets and braces outside strings only") {
  CHECK(json_limit_violation(nested(kMaxJsonDepth)).empty());
  CHECK(json_limit_violation(nested(kMaxJsonDepth + 1)) == "JSON nested deeper than 512 levels");
  CHECK(json_limit_violation("{\"a\":" + nested(kMaxJsonDepth) + "}") ==
        "JSON nested deeper than 512 levels");
  CHECK(json_limit_violation("[\"" + std::string(1000, '[') + "\"]").empty());
  // An escaped quote does not end the string; an escaped backslash before a quote does.
  CHECK(json_limit_violation("[\"\\\"" + std::string(1000, '[') + "\"]").empty());
  CHECK_FALSE(json_limit_violation("[\"\\\\\"" + std::string(1000, '[') + "\"]").empty());
}

TEST_CASE("json limits: a string may be 1 MiB, not a byte more") {
  CHECK(json_limit_violation("[" + quoted(kMaxJsonStringBytes) + "]").empty());
  const std::string v = json_limit_violation("[" + quoted(kMaxJsonStringBytes + 1) + "]");
  CHECK(v == "a JSON string of 1048577 bytes at byte 1 (strings are limited to 1048576 bytes)");
  // Escapes count as written (an even run of backslashes leaves the
  // closing quote a quote); an unterminated string is measured to the end.
  CHECK(json_limit_violation("[" + quoted(kMaxJsonStringBytes + 2, '\\') + "]") ==
        "a JSON string of 1048578 bytes at byte 1 (strings are limited to 1048576 bytes)");
  CHECK_FALSE(json_limit_violation("[\"" + std::string(kMaxJsonStringBytes + 1, 'a')).empty());
  CHECK(json_limit_violation("\"").empty());
}

TEST_CASE("json limits: excerpt cuts long text") {
  CHECK(mx::common::excerpt("short") == "short");
  CHECK(mx::common::excerpt(std::string(500, 'x'), 10) == std::string(10, 'x') + "...");
}
