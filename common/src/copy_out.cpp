#include "mx/common/copy_out.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace mx::common {

char* malloc_copy(std::string_view data) {
  // +1 so text buffers are always NUL-terminated, even when empty.
  auto* p = static_cast<char*>(std::malloc(data.size() + 1));
  if (!p) throw std::bad_alloc();
  if (!data.empty()) std::memcpy(p, data.data(), data.size());
  p[data.size()] = '\0';
  return p;
}

}  // namespace mx::common
