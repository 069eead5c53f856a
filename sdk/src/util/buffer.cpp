#include "util/buffer.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "c_api/guard.hpp"

namespace modelexport {
namespace {
char* duplicate(std::string_view data) {
  // +1 so text buffers are always NUL-terminated, even when empty.
  auto* p = static_cast<char*>(std::malloc(data.size() + 1));
  if (!p) throw std::bad_alloc();
  if (!data.empty()) std::memcpy(p, data.data(), data.size());
  p[data.size()] = '\0';
  return p;
}
}  // namespace

void copy_out_text(std::string_view text, char** out, size_t* out_size) {
  require(out, "out_json");
  *out = duplicate(text);
  if (out_size) *out_size = text.size();
}

void copy_out_bytes(std::string_view bytes, void** out, size_t* out_size) {
  require(out, "out");
  require(out_size, "out_size");
  *out = duplicate(bytes);
  *out_size = bytes.size();
}

}  // namespace modelexport
