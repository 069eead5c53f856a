// The one UTF-8 policy for text that comes from outside (ONNX names,
// metadata keys and values, doc_strings, JSON strings):
//  * such text is taken as UTF-8; an invalid sequence is replaced by U+FFFD
//    wherever the text leaves as text — JSON (util/json_text.hpp), XML and
//    DOT renders, hierarchy records — so every output is valid UTF-8;
//  * a record names its node by that same replaced text, so a node whose
//    name is not valid UTF-8 still gets, and finds again, its record
//    (model/record_keys.hpp);
//  * error messages quote outside text through printable(): U+FFFD for
//    invalid bytes and \xNN for control characters, so a NUL or an escape
//    sequence in a name can neither cut a message nor drive a terminal;
//  * `validate` reports invalid UTF-8 as an issue (kind "utf8"): ONNX
//    requires UTF-8 strings, and other tools may refuse the file.
#pragma once
#include <string>
#include <string_view>

namespace mx {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid
// (overlong forms, surrogates and code points past U+10FFFF are invalid).
size_t utf8_sequence_length(std::string_view s, size_t i);

// Every byte below 0x80 (ASCII is valid UTF-8): nearly every name, checked
// eight bytes at a time, the fast path of is_valid_utf8.
bool is_ascii(std::string_view s);

bool is_valid_utf8(std::string_view s);

// Byte offset of the first invalid sequence, or npos.
size_t first_invalid_utf8(std::string_view s);

// `s` with every invalid sequence replaced by U+FFFD (one per bad byte).
std::string to_valid_utf8(std::string_view s);

// For messages: to_valid_utf8, plus control characters as \xNN.
std::string printable(std::string_view s);

}  // namespace mx
