#include "module_stack.hpp"

namespace mxte {
namespace {
// What torch writes for a node its own passes inserted (sym_size, asserts).
constexpr const char* kEmptyStackMarker = "_empty_nn_module_stack_from_metadata_hook";
}  // namespace

std::vector<StackEntry> parse_module_stack(const std::string& text) {
  std::vector<StackEntry> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(';', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    // key,path,class - the class (last) and key (first) hold no comma; the
    // path may (a ModuleDict key), so split at the first and last comma.
    const size_t a = item.find(','), b = item.rfind(',');
    if (a == std::string::npos || b == a) continue;
    if (item.compare(0, a, kEmptyStackMarker) == 0) continue;  // no module
    out.push_back({item.substr(0, a), item.substr(a + 1, b - a - 1), item.substr(b + 1)});
  }
  return out;
}

}  // namespace mxte
