// Parser for the Python-`repr` lists the dynamo exporter stores in node
// metadata (`pkg.torch.onnx.name_scopes`, `pkg.torch.onnx.class_hierarchy`):
// "['', 'layer1', 'layer1.0', \"it's\"]".
//
// Written by hand rather than with a regex because repr picks the quote per
// item (double quotes when the text holds a single quote) and escapes
// non-printable characters (\n, \x07, \u2028, ...). Never throws: a value
// that is not a list of string literals yields ok == false and a message.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace mx::metadata {

struct ReprList {
  bool ok = false;
  std::vector<std::string> items;  // UTF-8, escapes decoded
  std::string error;               // why parsing failed, when !ok
};

// Accepts `[...]` or `(...)` holding zero or more string literals separated
// by commas (a trailing comma is allowed), surrounded by optional spaces.
ReprList parse_repr_list(std::string_view text);

}  // namespace mx::metadata
