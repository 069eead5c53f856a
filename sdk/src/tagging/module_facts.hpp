// What propagation knows about modules (docs/tagging.md §3): the supplied
// hierarchy's tree, classes, parameter counts and forward outlines, or, with
// no hierarchy, the tree rebuilt from the paths the strategies placed nodes
// in (no classes; a leaf "has parameters" when a node was placed in it with
// evidence "parameter").
#pragma once
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "tagging/assignment.hpp"
#include "tagging/rebuilt_tree.hpp"

namespace modelexport {

// One step of a forward outline: a call (name = module path) or an own op
// (name = TorchScript op kind, "aten::add").
struct Step {
  bool call = false;
  std::string name;
};
using Outline = std::vector<Step>;

class ModuleFacts {
 public:
  // `supplied`: the supplied hierarchy's "modules" (already validated by
  // load_supplied_hierarchy) or null; `a`: the strategies' assignments.
  ModuleFacts(const nlohmann::json& supplied, const Assignments& a);
  // The same with the supplied modules as the tree holds them (read once,
  // checked by load_supplied_hierarchy).
  ModuleFacts(const ModuleTree& supplied, const Assignments& a);

  bool is_leaf(const std::string& p) const;
  // Sequential / ModuleList / ModuleDict (without classes: a module whose
  // children are all numeric): their forward only calls children.
  bool is_container(const std::string& p) const;
  bool has_parameters(const std::string& p) const;
  bool parameter_free(const std::string& p) const;
  // A torch.nn leaf lowers to its parameter ops only (Linear, Conv, LayerNorm
  // with opset 17, Embedding, BatchNorm); unknown classes count as built-in.
  bool builtin(const std::string& p) const;
  bool closed_leaf(const std::string& p) const { return is_leaf(p) && has_parameters(p) && builtin(p); }
  bool open_parameter_leaf(const std::string& p) const {
    return is_leaf(p) && has_parameters(p) && !builtin(p);
  }
  const std::vector<std::string>& children(const std::string& p) const;
  std::string class_of(const std::string& p) const;

  // The outline of the module's forward (own ops and calls in program
  // order; docs/hierarchy-schema.md), if the supplied hierarchy has one.
  const Outline* outline(const std::string& p) const;
  // Could the module's own code (its outline's ops, not its callees') have
  // produced a node of `op_type`? Unknown without an outline, or when an
  // op of it is not in the lowering table and the known ones do not match.
  enum class Answer { yes, no, unknown };
  Answer can_run(const std::string& p, const std::string& op_type) const;
  // The same question for the own ops `p` runs before its first call into
  // `branch` (a module in its subtree: the callee, something below it, or a
  // container of callees), i.e. what `p` can compute before that code runs.
  // `branch == p` asks about all own ops (can_run). Unknown when `p` has no
  // outline or never calls into `branch`.
  Answer can_run_before_call(const std::string& p, const std::string& branch,
                             const std::string& op_type) const;
  // The same question for the own ops from the first one that could have
  // produced a `producer_op` node on: what `p` can still compute after it
  // (ShuffleNet: a block's `chunk` Slice does not follow its own channel
  // shuffle `view`; a MaxPool2d has nothing after its max_pool2d). That op
  // counts itself when it lowers to several node types (gelu: Div, Erf,
  // Mul...). Unknown when `p` has no outline, no own op could be the
  // producer, or an op is not in the lowering table.
  Answer can_run_after(const std::string& p, const std::string& producer_op,
                       const std::string& op_type) const;
  // Its forward runs no op of its own (BertEncoder, BertLayer: only calls).
  bool passes_through(const std::string& p) const;
  // Its forward does nothing at all (eval-mode Dropout, Identity): it
  // cannot own a node, and a call to it is no step in its caller.
  bool empty_forward(const std::string& p) const;
  // A strategy placed at least one node in exactly this module.
  bool has_nodes(const std::string& p) const;
  // Climbs out of modules that compute nothing themselves: containers, and
  // modules whose outline shows only calls.
  std::string owning(std::string p) const;

 private:
  struct OwnOps {
    std::unordered_set<std::string> types;  // ONNX op types the own ops lower to
    bool any_unknown = false;               // an own op the lowering table lacks
  };
  struct Facts {
    std::optional<Outline> forward;
    OwnOps own_ops;
    std::string cls, qualified;
    std::optional<long long> parameters, own_parameters;
    std::vector<std::string> children;  // in first-seen order
    bool parameter_evidence = false;
    bool placed = false;  // a strategy placed a node here
  };
  static Outline read_outline(const nlohmann::json& steps);
  void add_placed(const Assignments& a);
  static Answer answer_before_call(const Outline& steps, const std::string& branch,
                                   const std::string& op_type);
  static Answer answer_after(const Outline& steps, const std::string& producer_op,
                            const std::string& op_type);
  // The two outline-slice questions, memoised: asked once per node placed,
  // they depend only on the module, a branch or producer op, and an op type.
  template <class Compute>
  Answer memoised(char question, const std::string& p, const std::string& about,
                  const std::string& op_type, Compute compute) const;
  static OwnOps own_ops_of(const Outline& outline);
  Facts& add(const std::string& path);
  const Facts* find(const std::string& path) const;

  std::unordered_map<std::string, Facts> facts_;  // only looked up, never iterated
  mutable std::unordered_map<std::string, Answer> slice_memo_;
};

}  // namespace modelexport
