// append_json_string (util/json_text.hpp) writes what dump_text writes for
// every string: its plain check, eight bytes at a time, must flag exactly
// the strings with a byte below 0x20, at or above 0x7f, '"' or '\\' (at
// any position, in any word, in the tail) and no other.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "util/json_text.hpp"

using namespace mx;

namespace {

bool plain_by_bytes(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') return false;
  return true;
}

void check_string(const std::string& s) {
  CAPTURE(s);
  CHECK(is_plain_json_text(s) == plain_by_bytes(s));
  std::string out = "x";
  append_json_string(out, s);
  CHECK(out == "x" + dump_text(nlohmann::json(s)));
}

}  // namespace

TEST_CASE("json strings: every byte value at every position of a word and the tail") {
  for (size_t size : {1u, 7u, 8u, 9u, 16u, 23u}) {
    for (size_t at = 0; at < size; ++at) {
      for (int byte = 0; byte < 256; ++byte) {
        std::string s(size, 'a');
        s[at] = static_cast<char>(byte);
        CAPTURE(size);
        CAPTURE(at);
        CAPTURE(byte);
        CHECK(is_plain_json_text(s) == plain_by_bytes(s));
      }
    }
  }
  check_string("");
  check_string("encoder.layer.0.attention.self.query");
  check_string("quote\" in a long enough name");
  check_string("tab\tand\\backslash");
  check_string("caf\xc3\xa9 (valid UTF-8)");
  check_string("bad \xad byte past the first word");
}

TEST_CASE("json strings: random strings agree with the byte loop and with nlohmann") {
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    std::string s(rng() % 40, '\0');
    // Mostly plain bytes, a few of each kind that needs escaping.
    for (char& c : s) {
      const unsigned r = rng() % 100;
      c = static_cast<char>(r < 97 ? 0x20 + rng() % 0x5f : rng() % 256);
    }
    check_string(s);
  }
}
