#include "repr_list.hpp"

#include <cstdint>

namespace mx::metadata {
namespace {

// A cursor over the input; every parse step either advances or fails with a
// message that names the byte offset, so warnings point at the problem.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  char take() { return at_end() ? '\0' : text_[pos_++]; }
  size_t pos() const { return pos_; }

  void skip_spaces() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
  }

  bool fail(const std::string& what) {
    if (error_.empty()) error_ = what + " at offset " + std::to_string(pos_);
    return false;
  }
  const std::string& error() const { return error_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// \xhh, \uhhhh, \Uhhhhhhhh: exactly `digits` hex digits, as Python demands.
bool read_hex_escape(Cursor& in, int digits, std::string& out) {
  uint32_t cp = 0;
  for (int i = 0; i < digits; ++i) {
    int v = hex_value(in.take());
    if (v < 0) return in.fail("bad hex digit in escape");
    cp = cp * 16 + static_cast<uint32_t>(v);
  }
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return in.fail("escape is not a Unicode scalar value");
  append_utf8(out, cp);
  return true;
}

// \ooo: one to three octal digits, the first already seen.
void read_octal_escape(Cursor& in, char first, std::string& out) {
  uint32_t cp = static_cast<uint32_t>(first - '0');
  for (int i = 0; i < 2 && in.peek() >= '0' && in.peek() <= '7'; ++i)
    cp = cp * 8 + static_cast<uint32_t>(in.take() - '0');
  append_utf8(out, cp);
}

// One escape sequence after a backslash, with Python's string-literal rules.
bool read_escape(Cursor& in, std::string& out) {
  if (in.at_end()) return in.fail("unterminated escape");
  char c = in.take();
  switch (c) {
    case '\\':
      out += '\\';
      return true;
    case '\'':
      out += '\'';
      return true;
    case '"':
      out += '"';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 'r':
      out += '\r';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'a':
      out += '\a';
      return true;
    case 'b':
      out += '\b';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'v':
      out += '\v';
      return true;
    case '\n':
      return true;  // line continuation
    case 'x':
      return read_hex_escape(in, 2, out);
    case 'u':
      return read_hex_escape(in, 4, out);
    case 'U':
      return read_hex_escape(in, 8, out);
    default:
      break;
  }
  if (c >= '0' && c <= '7') {
    read_octal_escape(in, c, out);
    return true;
  }
  // Python keeps unknown escapes verbatim ("\q" is backslash + q).
  out += '\\';
  out += c;
  return true;
}

bool read_string(Cursor& in, std::string& out) {
  char quote = in.take();
  if (quote != '\'' && quote != '"') return in.fail("expected a string literal");
  while (true) {
    if (in.at_end()) return in.fail("unterminated string");
    char c = in.take();
    if (c == quote) return true;
    if (c == '\n') return in.fail("newline inside a string");
    if (c == '\\') {
      if (!read_escape(in, out)) return false;
    } else {
      out += c;
    }
  }
}

bool read_items(Cursor& in, char close, std::vector<std::string>& items) {
  in.skip_spaces();
  if (in.peek() == close) {
    in.take();
    return true;
  }
  while (true) {
    std::string item;
    if (!read_string(in, item)) return false;
    items.push_back(std::move(item));
    in.skip_spaces();
    char c = in.take();
    if (c == close) return true;
    if (c != ',') return in.fail(std::string("expected ',' or '") + close + "'");
    in.skip_spaces();
    if (in.peek() == close) {
      in.take();
      return true;
    }  // trailing comma
  }
}

}  // namespace

ReprList parse_repr_list(std::string_view text) {
  ReprList result;
  Cursor in(text);
  in.skip_spaces();
  char open = in.take();
  char close = open == '[' ? ']' : open == '(' ? ')' : '\0';
  bool ok = close != '\0' ? read_items(in, close, result.items) : in.fail("expected '[' or '('");
  if (ok) {
    in.skip_spaces();
    if (!in.at_end()) ok = in.fail("unexpected text after the list");
  }
  result.ok = ok;
  if (!ok) {
    result.items.clear();
    result.error = in.error();
  }
  return result;
}

}  // namespace mx::metadata
