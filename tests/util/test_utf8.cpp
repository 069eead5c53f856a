// util/utf8: the word-at-a-time ASCII check is_valid_utf8 starts with.
#include <doctest/doctest.h>

#include <string>

#include "util/utf8.hpp"

using namespace mx;

TEST_CASE("is_ascii: a byte at or above 0x80 anywhere in a word or the tail") {
  for (size_t size = 0; size <= 20; ++size) {
    const std::string plain(size, 'a');
    CHECK(is_ascii(plain));
    CHECK(is_valid_utf8(plain));
    for (size_t at = 0; at < size; ++at) {
      CAPTURE(size);
      CAPTURE(at);
      for (unsigned char high : {0x80, 0xC3, 0xFF}) {
        std::string s = plain;
        s[at] = static_cast<char>(high);
        CHECK_FALSE(is_ascii(s));
        // A lone lead or continuation byte is invalid: the fast path must
        // not answer for it.
        CHECK_FALSE(is_valid_utf8(s));
        CHECK(first_invalid_utf8(s) == at);
      }
      std::string e = plain;
      e.replace(at, 1, "\xC3\xA9");  // é: valid, not ASCII
      CHECK_FALSE(is_ascii(e));
      CHECK(is_valid_utf8(e));
      CHECK(to_valid_utf8(e) == e);
    }
  }
}
