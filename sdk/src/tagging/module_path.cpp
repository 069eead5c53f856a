#include "tagging/module_path.hpp"

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

std::vector<std::string> path_segments(const std::string& path) {
  std::vector<std::string> out;
  if (path.empty()) return out;
  size_t start = 0;
  for (;;) {
    size_t dot = path.find('.', start);
    out.push_back(path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return out;
}

std::string parent_path(const std::string& path) {
  size_t dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

std::string last_segment(const std::string& path) {
  size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

bool is_ancestor_or_self(const std::string& ancestor, const std::string& path) {
  if (ancestor.empty() || ancestor == path) return true;
  return path.size() > ancestor.size() && path.compare(0, ancestor.size(), ancestor) == 0 &&
         path[ancestor.size()] == '.';
}

std::string common_ancestor(const std::string& a, const std::string& b) {
  std::string candidate = a;
  while (!is_ancestor_or_self(candidate, b)) candidate = parent_path(candidate);
  return candidate;
}

}  // namespace modelexport
