#include "hierarchy/module_path_rules.hpp"

namespace modelexport {
namespace {

bool is_segment_char(unsigned char c) {
  return c > 0x20 && c != 0x7f && c != '.' && c != '/';
}

}  // namespace

bool is_valid_module_path(const std::string& path) {
  if (path.empty()) return true;
  bool segment_empty = true;
  for (unsigned char c : path) {
    if (c == '.') {
      if (segment_empty) return false;
      segment_empty = true;
    } else if (is_segment_char(c)) {
      segment_empty = false;
    } else {
      return false;
    }
  }
  return !segment_empty;
}

}  // namespace modelexport
