// JSON text out of values that may hold bytes from outside: ONNX strings
// (node names, metadata, doc_strings) are not guaranteed UTF-8, and
// nlohmann's default dump() throws on invalid UTF-8. Found by
// fuzz/targets/onnx_model.cpp: a node name with byte 0xAD made
// mx_model_graph_json fail with MX_ERR_INTERNAL. Invalid sequences become
// U+FFFD instead, so views stay available; a record keyed by such a name
// then no longer matches its node, which set_hierarchy reports clearly.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mx/common/json_limits.hpp"
#include "util/error.hpp"

namespace mx {

template <typename Json>
std::string dump_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// Whether `s` is written by dump_text as is, between quotes: printable
// ASCII without '"' or '\\'. Eight bytes at a time (the module tree's text
// is 20 MB of names at 200,000 nodes; a byte loop was most of writing it):
// a word is plain when none of its bytes is below 0x20, at or above 0x7f,
// or equal to '"' or '\\'. The byte tricks can flag a byte next to one that
// is flagged itself (a borrow or a carry), never a word with none, so the
// answer for the whole string is exact.
inline bool is_plain_json_text(std::string_view s) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  auto has_zero = [](uint64_t x) { return (x - kOnes) & ~x & kHigh; };
  const char* p = s.data();
  size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t x;
    std::memcpy(&x, p, 8);
    const uint64_t control = (x - 0x20 * kOnes) & ~x & kHigh;  // a byte < 0x20
    const uint64_t high = (x + kOnes) | x;                     // a byte >= 0x7f
    if ((control | (high & kHigh) | has_zero(x ^ ('"' * kOnes)) | has_zero(x ^ ('\\' * kOnes))) != 0)
      return false;
  }
  for (; n > 0; ++p, --n)
    if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\') return false;
  return true;
}

// Appends `s` as a JSON string exactly as dump_text writes it, for text
// streamed without a DOM (a million-row document). Plain printable ASCII,
// nearly every name, is copied; anything else goes through nlohmann.
inline void append_json_string(std::string& out, std::string_view s) {
  if (!is_plain_json_text(s)) {
    out += dump_text(nlohmann::json(std::string(s)));
    return;
  }
  const size_t at = out.size();
  out.resize(at + s.size() + 2);  // one growth check instead of three
  char* dst = out.data() + at;
  dst[0] = '"';
  // (An empty view may have no data pointer: memcpy must not see it.)
  if (!s.empty()) std::memcpy(dst + 1, s.data(), s.size());
  dst[s.size() + 1] = '"';
}

// Outside JSON text is refused (MX_ERR_PARSE, naming `where`) when it is
// nested too deep, holds too long a string or is too long as a whole: the
// limits every reader of outside JSON shares, frontends included
// (mx/common/json_limits.hpp says why and how much).
inline constexpr int kMaxJsonDepth = mx::common::kMaxJsonDepth;

inline void check_json_limits(std::string_view text, const std::string& where) {
  const std::string violation = mx::common::json_limit_violation(text);
  if (!violation.empty()) fail(MX_ERR_PARSE, where + ": " + violation);
}

// The same limit for a value already parsed (by a caller of the C++ API,
// or held as part of a larger document): an iterative walk, no text.
template <typename Json>
void check_json_value_depth(const Json& value, const std::string& where) {
  std::vector<std::pair<const Json*, int>> stack{{&value, 1}};
  while (!stack.empty()) {
    const auto [v, depth] = stack.back();
    stack.pop_back();
    if (!v->is_structured()) continue;
    if (depth > kMaxJsonDepth)
      fail(MX_ERR_PARSE, where + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    for (const auto& child : *v) stack.emplace_back(&child, depth + 1);
  }
}

}  // namespace mx
