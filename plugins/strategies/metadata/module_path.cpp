#include "module_path.hpp"

namespace mx_metadata {

bool is_valid_module_path(std::string_view path) {
  if (path.empty()) return true;
  bool segment_empty = true;
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    if (c == '.') {
      if (segment_empty) return false;
      segment_empty = true;
      continue;
    }
    if (u < 0x20 || u == 0x7F || c == ' ' || c == '/') return false;
    segment_empty = false;
  }
  return !segment_empty;
}

}  // namespace mx_metadata
