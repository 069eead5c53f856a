#include "mx/common/class_path_tag.hpp"

#include <algorithm>

#include "mx/common/module_path.hpp"

namespace mx::common {
namespace {

bool is_number(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool is_silent_container(const TagLevel& m) {
  if (m.container) return *m.container && !m.executed.value_or(false);
  // Only a document at hand: ModuleList/ModuleDict have no forward() and so
  // are never called unless a frontend said otherwise; a Sequential is
  // usually called, so only a stated "did not run" silences it.
  if (m.class_name == "ModuleList" || m.class_name == "ModuleDict") return !m.executed.value_or(false);
  return m.class_name == "Sequential" && m.executed == false;
}

bool is_builtin_class(std::string_view qualified_class) {
  return qualified_class.substr(0, 9) == "torch.nn.";
}

std::string tag_component(const TagLevel& m, bool drop_builtin) {
  const bool is_root = m.path.empty();
  if (!is_root && is_silent_container(m)) return {};
  if (!is_root && drop_builtin && is_builtin_class(m.qualified_class)) return {};
  std::string out = "/";
  out += m.class_name;
  const std::string_view name = last_view(m.path);
  if (is_number(name)) out.append(".").append(name);
  return out;
}

}  // namespace mx::common
