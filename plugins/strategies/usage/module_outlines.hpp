// What the supplied hierarchy's forward outlines say about the modules that
// own parameters (docs/hierarchy-schema.md, `forward`): which ONNX op types
// a module's own code can produce, and how often it is called. Used to keep
// a shared parameter as evidence for the nodes its owner really runs (a tied
// embedding's Gather), see usage_strategy.hpp.
#pragma once
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "strategy_graph.hpp"

namespace mx::usage {

class ModuleOutlines {
 public:
  ModuleOutlines() = default;
  // `modules`: the supplied hierarchy's modules (the host validated them).
  explicit ModuleOutlines(const mx_strategy::Modules& modules);

  bool empty() const { return own_ops_.empty(); }
  // The module's own ops lower to `op_type` (false when not known).
  bool runs(const std::string& module, const std::string& op_type) const;
  // How many times the module runs per forward of the model: the largest
  // number of call steps naming it or one of its ancestors (a shared module
  // called twice, `shared` and `shared.forward1`), at least 1 once known.
  int calls(const std::string& module) const;
  // A module no outline calls, whose parameters are another module's (T5's
  // `shared` embedding is `encoder.embed_tokens`; named_modules() lists the
  // object under both paths, the file names the parameter after the first):
  // the one called module of the same class and own parameter count whose
  // own ops produce `op_type`. Empty when there is not exactly one.
  std::string running_alias(const std::string& module, const std::string& op_type) const;
  // A module no outline calls and that runs nothing itself (no outline: a
  // submodule the tracer never entered has no forward; or an empty one),
  // whose parameters an ancestor's own code reads instead (nn.MultiheadAttention reads `out_proj.weight` itself):
  // the nearest ancestor whose own ops may produce `op_type` (they do, or
  // they include an op the lowering table does not know). Empty otherwise.
  std::string reading_ancestor(const std::string& module, const std::string& op_type) const;

  // The module's own ops may lower to one of `op_types`: they do, or the
  // module has no outline or an op the lowering table lacks (nothing known).
  bool may_run_any(const std::string& module, const std::vector<std::string>& op_types) const;
  // The supplied hierarchy's own parameter count of a module (-1: unknown).
  long long own_parameters(const std::string& module) const;
  // Modules with own parameters in the order the model's forward calls them
  // (the outlines expanded from the root, a module once per call); without
  // a root outline, in the order of the hierarchy's module list.
  std::vector<std::string> parameter_modules_in_call_order() const;

 private:
  struct Identity {
    std::string cls;
    long long own_parameters = -1;
  };
  bool called(const std::string& module) const;
  std::unordered_map<std::string, std::unordered_set<std::string>> own_ops_;
  std::unordered_set<std::string> unknown_ops_;  // modules with an op the table lacks
  std::unordered_set<std::string> empty_;        // modules whose outline is []
  std::unordered_map<std::string, int> call_steps_;
  std::unordered_map<std::string, Identity> identity_;
  std::unordered_map<std::string, std::vector<std::string>> callees_;  // in program order
  std::vector<std::string> listed_;  // module paths in the hierarchy's order
};

}  // namespace mx::usage
