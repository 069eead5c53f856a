#include "module_choice.hpp"

#include <algorithm>

#include "mx/common/module_path.hpp"
#include "parameter_name.hpp"

namespace mx::usage {
namespace {

std::vector<std::string> distinct(std::vector<std::string> items) {
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());
  return items;
}

bool is_weight(const std::string& parameter) {
  size_t dot = parameter.rfind('.');
  return dot != std::string::npos && parameter.compare(dot + 1, std::string::npos, "weight") == 0;
}

}  // namespace

std::optional<std::string> choose_module(const std::vector<std::string>& parameters) {
  std::vector<std::string> modules, weight_modules;
  for (const auto& p : parameters) {
    auto module = module_of_parameter(p);
    if (!module) continue;
    modules.push_back(*module);
    if (is_weight(p)) weight_modules.push_back(*module);
  }
  modules = distinct(std::move(modules));
  if (modules.empty()) return std::nullopt;
  if (modules.size() == 1) return modules.front();
  weight_modules = distinct(std::move(weight_modules));
  if (weight_modules.size() == 1) return weight_modules.front();
  std::string ancestor = modules.front();
  for (const auto& m : modules) ancestor = mx::common::common_ancestor(ancestor, m);
  if (ancestor.empty()) return std::nullopt;
  return ancestor;
}

}  // namespace mx::usage
