// Text handed to C callers: malloc'ed, NUL-terminated, freed with mx_free().
#pragma once
#include <cstdlib>
#include <cstring>
#include <string>

#include "util/error.hpp"

namespace modelexport {

inline void copy_out(const std::string& text, char** out, size_t* out_size) {
  char* buffer = static_cast<char*>(std::malloc(text.size() + 1));
  if (!buffer) fail(MX_ERR_INTERNAL, "out of memory");
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  *out = buffer;
  if (out_size) *out_size = text.size();
}

}  // namespace modelexport
