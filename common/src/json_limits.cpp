#include "mx/common/json_limits.hpp"

#include <cstring>

namespace mx::common {

std::string json_limit_violation(std::string_view text) {
  if (text.size() > kMaxJsonTextBytes)
    return "JSON text of " + std::to_string(text.size()) + " bytes (the limit is " +
           std::to_string(kMaxJsonTextBytes) + ")";
  int depth = 0;
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  for (const char* p = begin; p < end; ++p) {
    const char c = *p;
    if (c == '"') {
      // Inside a string only '"' and '\\' matter: jump between them.
      const char* const open = p++;
      while (p < end) {
        const void* hit = std::memchr(p, '"', static_cast<size_t>(end - p));
        const char* quote = hit ? static_cast<const char*>(hit) : end;
        // The quote closes the string unless an odd run of backslashes precedes it.
        size_t slashes = 0;
        for (const char* q = quote; q > p && q[-1] == '\\'; --q) ++slashes;
        p = quote;
        if (quote == end || slashes % 2 == 0) break;
        ++p;
      }
      if (static_cast<size_t>(p - open) > kMaxJsonStringBytes + 1)
        return "a JSON string of " + std::to_string(p - open - 1) + " bytes at byte " +
               std::to_string(open - begin) + " (strings are limited to " +
               std::to_string(kMaxJsonStringBytes) + " bytes)";
      if (p == end) break;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return "";
}

std::string excerpt(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  return std::string(text.substr(0, max_bytes)) + "...";
}

}  // namespace mx::common
