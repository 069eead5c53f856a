// Fitting a scope path onto a known module tree (the request's "modules").
// Scopes only name modules whose forward ran, and with unqualified names, so
// a container that was never called can be missing from the scope path
// ("/encoder/attn/…" for encoder.blocks.attn when the ModuleDict "blocks"
// is only indexed). Each step is therefore resolved as a direct child first,
// then as the shallowest unique descendant whose path ends with the step;
// a step that resolves neither way is retried without a repeated-call
// suffix (`relu_1` -> `relu`: torch.onnx's name for a module's second call);
// the first step that still does not resolve stops the walk, and the deepest
// module reached is the answer.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "file_modules.hpp"  // ModulePaths

namespace mx::scope {

class ModuleSnap {
 public:
  explicit ModuleSnap(ModulePaths module_paths);
  bool empty() const { return paths_.empty(); }
  std::string resolve(const std::vector<std::string_view>& steps) const;
  // The walk behind resolve, resumable: resolves steps[from..] starting
  // at `current` (what steps[..from] resolved to), appending to `lengths`
  // the size of `current` after each step it resolves (each module reached
  // extends the one before, so these are prefixes of the final one), and
  // stops at the first step that does not resolve. `scratch` is a reused
  // buffer.
  void walk(const std::vector<std::string_view>& steps, size_t from, std::string& current,
            std::vector<size_t>& lengths, std::string& scratch) const;

 private:
  bool resolve_step(const std::string& current, std::string_view step, std::string& next) const;
  bool descendant_for(const std::string& base, std::string_view step, std::string& out) const;
  ModulePaths paths_;
};

}  // namespace mx::scope
