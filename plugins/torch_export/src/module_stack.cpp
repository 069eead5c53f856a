#include "module_stack.hpp"

#include <stdexcept>

#include "mx/common/json_limits.hpp"

namespace mx::torch_export {
namespace {
// What torch writes for a node its own passes inserted (sym_size, asserts).
constexpr const char* kEmptyStackMarker = "_empty_nn_module_stack_from_metadata_hook";
}  // namespace

std::vector<StackEntry> parse_module_stack(const std::string& text) {
  std::vector<StackEntry> out;
  size_t pos = 0, index = 0;
  for (; pos < text.size(); ++index) {
    size_t end = text.find(';', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.compare(0, std::char_traits<char>::length(kEmptyStackMarker), kEmptyStackMarker) == 0) continue;
    // key,path,class - the class (last) and key (first) hold no comma; the
    // path may (a ModuleDict key), so split at the first and last comma.
    // torch.export.load refuses an entry of fewer parts.
    const size_t a = item.find(','), b = item.rfind(',');
    if (a == std::string::npos || b == a)
      throw std::runtime_error("entry " + std::to_string(index) + " (" + mx::common::excerpt(item) +
                               ") is not of the form key,path,class");
    const std::string key = item.substr(0, a);
    out.push_back({key, item.substr(a + 1, b - a - 1), item.substr(b + 1), call_index_of_key(key)});
  }
  return out;
}

int call_index_of_key(const std::string& key) {
  // torch.export suffixes the key of a module's second, third.. call with
  // @1, @2..; module names cannot hold '@', so the suffix is unambiguous.
  const size_t at = key.rfind('@');
  if (at == std::string::npos || at + 1 == key.size() || key.size() - at > 10) return 0;
  int n = 0;
  for (size_t k = at + 1; k < key.size(); ++k) {
    if (key[k] < '0' || key[k] > '9') return 0;
    n = n * 10 + (key[k] - '0');
  }
  return n;
}

int innermost_call(const std::string& stack_text) {
  const auto entries = parse_module_stack(stack_text);
  return entries.empty() ? 0 : entries.back().call;
}

}  // namespace mx::torch_export
