// Limits for JSON text from outside (a hierarchy sidecar, a .pt2 program
// or weights config, options and plugin answers), checked on the text
// before it is parsed, by the core and by every frontend plugin alike.
//
// nlohmann's parser is iterative, but copying, comparing, dumping and
// destroying a value recurse: JSON nested 100,000 deep overflows the stack
// (a vendor's thread with a small stack far sooner). A single string of
// hundreds of megabytes (a module's class) costs its size many times over
// in copies before any check can see it. So a text is refused, before any
// value is built, when it is nested deeper than kMaxJsonDepth, holds a
// string longer than kMaxJsonStringBytes (before unescaping) or is longer
// than kMaxJsonTextBytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mx::common {

inline constexpr int kMaxJsonDepth = 512;
inline constexpr size_t kMaxJsonStringBytes = size_t{1} << 20;    // 1 MiB
inline constexpr uint64_t kMaxJsonTextBytes = uint64_t{1} << 30;  // 1 GiB

// What is wrong with `text` under the limits ("JSON nested deeper than 512
// levels"), or "" when nothing is. One pass, no allocation unless refused;
// text that is not JSON at all passes (the parser reports it).
std::string json_limit_violation(std::string_view text);

// A value's JSON text cut to at most `max_bytes` (with "..." appended when
// cut), for error messages that quote outside data.
std::string excerpt(std::string_view text, size_t max_bytes = 120);

}  // namespace mx::common
