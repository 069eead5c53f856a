#include "module_outlines.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "mx/common/aten_op_classes.hpp"
#include "mx/common/module_path.hpp"

namespace mx::usage {

ModuleOutlines::ModuleOutlines(const mx_strategy::Modules& modules) {
  for (size_t i = 0; i < modules.count(); ++i) {
    const std::string path = modules.path(i);
    listed_.push_back(path);
    Identity& id = identity_[path];
    id.cls = modules.class_name(i);
    id.own_parameters = modules.own_parameters(i);
    auto forward = modules.forward(i);
    if (!forward) continue;
    auto& own = own_ops_[path];
    if (forward->empty()) empty_.insert(path);
    for (const auto& step : *forward) {
      if (step.call) {
        ++call_steps_[step.name];
        callees_[path].push_back(step.name);
      } else if (auto ops = mx::common::onnx_ops_of(step.name)) {
        own.insert(ops->begin(), ops->end());
      } else {
        unknown_ops_.insert(path);
      }
    }
  }
}

bool ModuleOutlines::runs(const std::string& module, const std::string& op_type) const {
  auto it = own_ops_.find(module);
  return it != own_ops_.end() && it->second.count(op_type) != 0;
}

bool ModuleOutlines::called(const std::string& module) const {
  auto it = call_steps_.find(module);
  return it != call_steps_.end() && it->second > 0;
}

std::string ModuleOutlines::running_alias(const std::string& module, const std::string& op_type) const {
  auto self = identity_.find(module);
  if (module.empty() || empty() || called(module) || self == identity_.end() ||
      self->second.own_parameters <= 0)
    return "";
  std::string found;
  for (const auto& [path, id] : identity_) {
    if (path == module || id.cls != self->second.cls || id.own_parameters != self->second.own_parameters ||
        !called(path) || !runs(path, op_type))
      continue;
    if (!found.empty()) return "";  // several candidates: no guess
    found = path;
  }
  return found;
}

std::string ModuleOutlines::reading_ancestor(const std::string& module, const std::string& op_type) const {
  // No forward outline at all (a submodule torch.jit.trace never entered has
  // no forward method) or an empty one; known to the hierarchy; outlines
  // present for the model (else nothing is known about calls).
  const bool runs_nothing = !own_ops_.count(module) || empty_.count(module);
  if (module.empty() || empty() || called(module) || !identity_.count(module) || !runs_nothing) return "";
  std::string a = module;
  while (!a.empty()) {
    a = mx::common::parent_path(a);
    if (own_ops_.count(a) && (runs(a, op_type) || unknown_ops_.count(a))) return a;
  }
  return "";
}

int ModuleOutlines::calls(const std::string& module) const {
  int most = 1;
  std::string path = module;
  for (;;) {
    auto it = call_steps_.find(path);
    if (it != call_steps_.end()) most = std::max(most, it->second);
    if (path.empty()) return most;
    path = mx::common::parent_path(path);
  }
}

bool ModuleOutlines::may_run_any(const std::string& module, const std::vector<std::string>& op_types) const {
  if (!own_ops_.count(module) || unknown_ops_.count(module)) return true;
  for (const auto& op : op_types)
    if (runs(module, op)) return true;
  return false;
}

long long ModuleOutlines::own_parameters(const std::string& module) const {
  auto it = identity_.find(module);
  return it == identity_.end() ? -1 : it->second.own_parameters;
}

std::vector<std::string> ModuleOutlines::parameter_modules_in_call_order() const {
  std::vector<std::string> order;
  if (!own_ops_.count("")) {
    for (const auto& path : listed_)
      if (own_parameters(path) > 0) order.push_back(path);
    return order;
  }
  // Depth-first through the calls; `active` breaks cycles and `budget`
  // bounds the expansion (outlines are user input: a module may claim to
  // call itself, or each level to call the next twice). A real model's
  // calls form a tree: one visit per call.
  std::unordered_set<std::string> active;
  size_t budget = 1000000;
  auto visit = [&](const std::string& module, auto& self) -> void {
    if (budget == 0 || !active.insert(module).second) return;
    --budget;
    if (own_parameters(module) > 0) order.push_back(module);
    auto it = callees_.find(module);
    if (it != callees_.end())
      for (const auto& callee : it->second) self(callee, self);
    active.erase(module);
  };
  visit("", visit);
  return order;
}

}  // namespace mx::usage
