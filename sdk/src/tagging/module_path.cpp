#include "tagging/module_path.hpp"

namespace modelexport {
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
