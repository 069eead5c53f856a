// Buffers handed across a C ABI are malloc'd, so the caller releases them
// with free() (mx_free) whichever C++ runtime it uses. std only.
#pragma once
#include <string_view>

namespace mx::common {

// A malloc'd copy of `data`, always NUL-terminated (also when empty).
// Throws std::bad_alloc when malloc fails.
char* malloc_copy(std::string_view data);

}  // namespace mx::common
