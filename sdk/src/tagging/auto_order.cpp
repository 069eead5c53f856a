#include "tagging/auto_order.hpp"

#include <algorithm>

namespace mx {
namespace {

int priority(const std::string& name) {
  if (name == "metadata") return 0;
  if (name == "scope") return 1;
  if (name == "usage") return 2;
  return 3;
}

}  // namespace

std::vector<std::string> auto_strategy_order(std::vector<std::string> names) {
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    int pa = priority(a), pb = priority(b);
    return pa != pb ? pa < pb : a < b;
  });
  return names;
}

}  // namespace mx
