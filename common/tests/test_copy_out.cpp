#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>

#include "mx/common/copy_out.hpp"

TEST_CASE("malloc_copy: bytes and a terminating NUL, also when empty") {
  char* p = mx::common::malloc_copy(std::string_view("ab\0c", 4));
  CHECK(std::memcmp(p, "ab\0c\0", 5) == 0);
  std::free(p);
  char* e = mx::common::malloc_copy("");
  CHECK(e[0] == '\0');
  std::free(e);
}
