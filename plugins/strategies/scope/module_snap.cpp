#include "module_snap.hpp"

#include "mx/common/module_path.hpp"

namespace mx::scope {
namespace {

using mx::common::path_depth;

bool ends_with_step(std::string_view path, std::string_view step) {
  return path.size() > step.size() && path.compare(path.size() - step.size(), step.size(), step) == 0 &&
         path[path.size() - step.size() - 1] == '.';
}

bool is_under(std::string_view base, std::string_view path) {
  return base.empty() || (path.size() > base.size() + 1 && path.compare(0, base.size(), base) == 0 &&
                          path[base.size()] == '.');
}

}  // namespace

ModuleSnap::ModuleSnap(ModulePaths module_paths) : paths_(std::move(module_paths)) {}

// The result does not depend on the order `paths_` is walked in: only a
// unique shallowest candidate is an answer.
bool ModuleSnap::descendant_for(const std::string& base, std::string_view step, std::string& out) const {
  size_t best_depth = 0;
  int found = 0;
  paths_.each([&](std::string_view path) {
    if (!is_under(base, path) || !ends_with_step(path, step)) return;
    size_t d = path_depth(path);
    if (found == 0 || d < best_depth) {
      best_depth = d, out = path, found = 1;
    } else if (d == best_depth) {
      ++found;  // two equally good candidates: ambiguous, refuse to guess
    }
  });
  return found == 1;
}

bool ModuleSnap::resolve_step(const std::string& current, std::string_view step, std::string& next) const {
  next = current;
  if (!next.empty() && !step.empty()) next += '.';
  next += step;
  return paths_.contains(next) || descendant_for(current, step, next);
}

std::string ModuleSnap::resolve(const std::vector<std::string_view>& steps) const {
  std::string current, scratch;
  std::vector<size_t> lengths;
  walk(steps, 0, current, lengths, scratch);
  return current;
}

void ModuleSnap::walk(const std::vector<std::string_view>& steps, size_t from, std::string& current,
                      std::vector<size_t>& lengths, std::string& next) const {
  for (size_t i = from; i < steps.size(); ++i) {
    const std::string_view step = steps[i];
    if (!resolve_step(current, step, next)) {
      // Only when the suffixed name is no module: a real `ln_1` wins above.
      const std::string_view base = repeated_call_base(step);
      if (base.empty() || !resolve_step(current, base, next)) return;
    }
    current.swap(next);
    lengths.push_back(current.size());
  }
}

}  // namespace mx::scope
