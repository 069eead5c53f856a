// What propagation knows about modules (docs/tagging.md §3): the supplied
// hierarchy's tree, classes, parameter counts and forward outlines, or, with
// no hierarchy, the tree rebuilt from the paths the strategies placed nodes
// in (no classes; a leaf "has parameters" when a node was placed in it with
// evidence "parameter").
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "mx/common/string_blocks.hpp"
#include "tagging/assignment.hpp"
#include "model/name_index.hpp"
#include "tagging/rebuilt_tree.hpp"

namespace mx {

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

  // A module's id: its position in the facts. A rule that carries a
  // module's id along with its path asks about it without hashing the path
  // again (at 200,000 nodes those lookups, each a cache miss on a random
  // slot and another on the path's text, were a third of propagation).
  enum class Id : uint32_t { none = UINT32_MAX };
  // A module named by its path, with its id when the caller knows it
  // (`none`: looked up by path). The id, when given, must be the path's.
  struct Ref {
    std::string_view path;
    Id id = Id::none;
    Ref(std::string_view p) : path(p) {}    // NOLINT: a path converts implicitly
    Ref(const std::string& p) : path(p) {}  // NOLINT
    Ref(const char* p) : path(p) {}         // NOLINT
    Ref(std::string_view p, Id i) : path(p), id(i) {}
  };
  // The id of the module at `p`, or none for a path that is no module here.
  Ref ref(std::string_view p) const;
  // Its parent ("" for the root's parent, as parent_view), with its id
  // when `p`'s is known.
  Ref parent(Ref p) const;
  // The deepest module that is an ancestor-or-self of both (common_ancestor_view
  // of their paths), with its id when `a`'s is known.
  Ref common_ancestor(Ref a, Ref b) const;
  // The ids of the modules the strategies placed each node in (none for an
  // unplaced node), found while the facts were built; taken once.
  std::vector<Id> take_node_modules() { return std::move(node_modules_); }

  bool is_leaf(Ref p) const;
  // Sequential / ModuleList / ModuleDict (without classes: a module whose
  // children are all numeric): their forward only calls children.
  bool is_container(Ref p) const;
  bool has_parameters(Ref p) const;
  bool parameter_free(Ref p) const;
  // A torch.nn leaf lowers to its parameter ops only (Linear, Conv, LayerNorm
  // with opset 17, Embedding, BatchNorm); unknown classes count as built-in.
  bool builtin(Ref p) const;
  // A leaf with parameters that is / is not built-in.
  bool closed_leaf(Ref p) const;
  bool open_parameter_leaf(Ref p) const;
  // A child of it is parameter_free (none: no child can lower an op
  // without parameters, data_path_rule's matching_child has nothing to find).
  bool has_parameter_free_child(Ref p) const;
  // Its children in first-seen order (views valid while the facts live).
  std::vector<std::string_view> children(Ref p) const;
  std::string_view class_of(Ref p) const;

  // The outline of the module's forward (own ops and calls in program
  // order; docs/hierarchy-schema.md), if the supplied hierarchy has one.
  const Outline* outline(Ref p) const;
  // Could the module's own code (its outline's ops, not its callees') have
  // produced a node of `op_type`? Unknown without an outline, or when an
  // op of it is not in the lowering table and the known ones do not match.
  enum class Answer { yes, no, unknown };
  Answer can_run(Ref p, std::string_view op_type) const;
  // The same question for the own ops `p` runs before its first call into
  // `branch` (a module in its subtree: the callee, something below it, or a
  // container of callees), i.e. what `p` can compute before that code runs.
  // `branch == p` asks about all own ops (can_run). Unknown when `p` has no
  // outline or never calls into `branch`.
  Answer can_run_before_call(Ref p, std::string_view branch, std::string_view op_type) const;
  // The same question for the own ops from the first one that could have
  // produced a `producer_op` node on: what `p` can still compute after it
  // (ShuffleNet: a block's `chunk` Slice does not follow its own channel
  // shuffle `view`; a MaxPool2d has nothing after its max_pool2d). That op
  // counts itself when it lowers to several node types (gelu: Div, Erf,
  // Mul...). Unknown when `p` has no outline, no own op could be the
  // producer, or an op is not in the lowering table.
  Answer can_run_after(Ref p, std::string_view producer_op, std::string_view op_type) const;
  // Its forward runs no op of its own (BertEncoder, BertLayer: only calls).
  bool passes_through(Ref p) const;
  // Its forward does nothing at all (eval-mode Dropout, Identity): it
  // cannot own a node, and a call to it is no step in its caller.
  bool empty_forward(Ref p) const;
  // A strategy placed at least one node in exactly this module.
  bool has_nodes(Ref p) const;
  // Climbs out of modules that compute nothing themselves: containers, and
  // modules whose outline shows only calls.
  // The answer's path is a view into the facts' own storage (or "" for the
  // root), its id known unless `p` is no module here.
  Ref owning(Ref p) const;

 private:
  static constexpr uint32_t kNoModule = UINT32_MAX;
  struct OwnOps {
    std::unordered_set<std::string> types;  // ONNX op types the own ops lower to
    bool any_unknown = false;               // an own op the lowering table lacks
  };
  // What a supplied module adds (class, parameter counts, outline): kept
  // apart from Facts, which every placed path gets, so the facts of a
  // graph without a supplied hierarchy stay small (fewer fresh pages to
  // touch at 150,000 modules).
  struct Supplied {
    std::unique_ptr<Outline> forward;
    std::unique_ptr<OwnOps> own_ops;  // with `forward`
    std::string_view cls, qualified;  // into the supplied modules
    std::optional<long long> parameters, own_parameters;
  };
  // One per module, in a flat vector indexed by a module id (a million
  // modules were a million hash-table nodes, each with strings and a
  // vector of children's paths, allocated and freed one by one).
  // Its path is the index's name of the same id (into paths_; a parent's
  // path is a prefix of its child's): a view here too was 16 bytes more
  // per module of fresh memory.
  struct Facts {
    uint32_t parent = kNoModule;
    uint32_t first_child = kNoModule, last_child = kNoModule, next_sibling = kNoModule;
    uint32_t supplied = kNoModule;  // index into supplied_, or none
    bool parameter_evidence = false;
    bool placed = false;                // a strategy placed a node here
    bool container = false;             // is_container, decided once all modules are in
    bool parameter_free_child = false;  // likewise
  };
  const Supplied* supplied_of(const Facts& f) const {
    return f.supplied == kNoModule ? nullptr : &supplied_[f.supplied];
  }
  Supplied& supplied_for(uint32_t id);  // created on first use
  bool leaf_with_parameters(const Facts& f) const;
  bool builtin(const Facts& f) const;
  static Outline read_outline(const nlohmann::json& steps);
  void add_placed(const Assignments& a);
  void decide_from_children();
  static Answer answer_before_call(const Outline& steps, std::string_view branch, std::string_view op_type);
  static Answer answer_after(const Outline& steps, std::string_view producer_op, std::string_view op_type);
  // The two outline-slice questions, memoised: asked once per node placed,
  // they depend only on the module, a branch or producer op, and an op type.
  template <class Compute>
  Answer memoised(char question, Ref p, std::string_view about, std::string_view op_type,
                  Compute compute) const;
  static OwnOps own_ops_of(Outline::const_iterator begin, Outline::const_iterator end);
  // A copy of `path` in paths_ (stable: blocks are never moved).
  std::string_view stored(std::string_view path) const;
  // `near`: a module known to the caller (the previous one added), whose
  // ancestors are checked before the index: consecutive paths share most
  // of theirs. kNoModule when there is none.
  uint32_t add(std::string_view path, uint32_t near = kNoModule);
  // The ancestor-or-self of module `near` whose path is `p`, or kNoModule.
  uint32_t ancestor_named(uint32_t near, std::string_view p) const;
  const Facts* find(std::string_view path) const;
  const Facts* find(Ref p) const {
    return p.id != Id::none ? &facts_[static_cast<uint32_t>(p.id)] : find(p.path);
  }
  uint32_t id_of(const Facts& f) const { return static_cast<uint32_t>(&f - facts_.data()); }
  std::string_view path_of(const Facts& f) const { return index_.name(id_of(f)); }
  std::string_view path_of(uint32_t id) const { return index_.name(id); }

  std::vector<Facts> facts_;
  std::vector<Supplied> supplied_;
  model::NameIndex index_;  // path → facts_ id (in step: every id has its facts)
  // Storage of the paths, in blocks; mutable for owning()'s rare answer
  // outside the tree.
  mutable mx::common::StringBlocks paths_;
  mutable std::unordered_map<std::string, Answer> slice_memo_;
  std::vector<Id> node_modules_;  // node → the id of its strategy-placed module
  // The last modules found: the rules ask several questions about one
  // module in a row (is_leaf, has_parameters, builtin...), alternating
  // between a node's producer's module, its parent and the module that
  // owns it. Checked in turn before the index (a lookup is mostly a cache
  // miss on a random slot), replaced round robin. Like the memo, state of
  // one propagation's single thread (a ModuleFacts is not shared).
  static constexpr size_t kRecent = 4;
  mutable const Facts* recent_[kRecent] = {};
  mutable size_t next_recent_ = 0;
};

}  // namespace mx
