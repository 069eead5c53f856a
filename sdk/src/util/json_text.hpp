// JSON text out of values that may hold bytes from outside: ONNX strings
// (node names, metadata, doc_strings) are not guaranteed UTF-8, and
// nlohmann's default dump() throws on invalid UTF-8. Found by
// fuzz/targets/onnx_model.cpp: a node name with byte 0xAD made
// mx_model_graph_json fail with MX_ERR_INTERNAL. Invalid sequences become
// U+FFFD instead, so views stay available; a record keyed by such a name
// then no longer matches its node, which set_hierarchy reports clearly.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/error.hpp"

namespace modelexport {

template <typename Json>
std::string dump_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// Appends `s` as a JSON string exactly as dump_text writes it, for text
// streamed without a DOM (a million-row document). Plain printable ASCII,
// nearly every name, is copied; anything else goes through nlohmann.
inline void append_json_string(std::string& out, std::string_view s) {
  bool plain = true;
  for (char c : s) plain = plain && c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  if (!plain) {
    out += dump_text(nlohmann::json(std::string(s)));
    return;
  }
  out += '"';
  out += s;
  out += '"';
}

// nlohmann's parser is iterative, but copying, comparing, dumping and
// destroying values recurse: JSON nested 20,000 deep overflowed the stack
// under ASan (fuzz corpus hierarchy_json/deep_extra.json), and a vendor's
// thread with a small stack would crash far sooner. Outside JSON text is
// scanned first and refused (MX_ERR_PARSE, naming `where`) beyond this depth.
inline constexpr int kMaxJsonDepth = 512;

inline void check_json_depth(std::string_view text, const std::string& where) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        fail(MX_ERR_PARSE, where + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                               " levels");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
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
      fail(MX_ERR_PARSE, where + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                             " levels");
    for (const auto& child : *v) stack.emplace_back(&child, depth + 1);
  }
}

}  // namespace modelexport
