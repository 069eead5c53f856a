#include "mx/common/module_path.hpp"

namespace mx::common {
namespace {

bool is_segment_char(unsigned char c) {
  return c > 0x20 && c != 0x7f && c != '.' && c != '/';
}

}  // namespace

bool is_valid_module_path(std::string_view path) {
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

std::vector<std::string> path_segments(std::string_view path) {
  std::vector<std::string> out;
  if (path.empty()) return out;
  size_t start = 0;
  for (;;) {
    size_t dot = path.find('.', start);
    out.emplace_back(path.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

std::string parent_path(std::string_view path) {
  size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string() : std::string(path.substr(0, dot));
}

std::string last_segment(std::string_view path) {
  size_t dot = path.rfind('.');
  return std::string(dot == std::string_view::npos ? path : path.substr(dot + 1));
}

std::string join_path(std::string_view base, std::string_view rel) {
  if (base.empty()) return std::string(rel);
  if (rel.empty()) return std::string(base);
  std::string out;
  out.reserve(base.size() + 1 + rel.size());
  out.append(base).append(1, '.').append(rel);
  return out;
}

size_t path_depth(std::string_view path) {
  if (path.empty()) return 0;
  size_t d = 1;
  for (char c : path) d += c == '.';
  return d;
}

bool is_ancestor_or_self(std::string_view ancestor, std::string_view path) {
  if (ancestor.empty() || ancestor == path) return true;
  return path.size() > ancestor.size() && path.compare(0, ancestor.size(), ancestor) == 0 &&
         path[ancestor.size()] == '.';
}

std::string relative_path(std::string_view path, std::string_view ancestor) {
  if (ancestor.empty()) return std::string(path);
  if (path.size() == ancestor.size()) return "";
  return std::string(path.substr(ancestor.size() + 1));
}

// Walks both paths once: the last position where both are at a segment
// boundary with equal text before it ("layer1" / "layer10" share none).
std::string_view common_ancestor_view(std::string_view a, std::string_view b) {
  size_t common = 0;
  for (size_t i = 0;; ++i) {
    const bool end_a = i == a.size(), end_b = i == b.size();
    if ((end_a || a[i] == '.') && (end_b || b[i] == '.')) common = i;
    if (end_a || end_b || a[i] != b[i]) break;
  }
  return a.substr(0, common);
}

std::string common_ancestor(std::string_view a, std::string_view b) {
  return std::string(common_ancestor_view(a, b));
}

}  // namespace mx::common
