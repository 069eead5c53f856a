#include "scope_strategy.hpp"

#include "file_modules.hpp"
#include "module_snap.hpp"
#include "path_placement.hpp"
#include "scope_name.hpp"

namespace mx::scope {
namespace {

ModulePaths module_paths(const mx_strategy::Modules& modules) {
  ModulePaths paths;
  paths.reserve(modules.count());
  for (size_t i = 0; i < modules.count(); ++i) paths.add(modules.path(i));
  return paths;
}

std::vector<std::string_view> node_names(const mx_strategy::Graph& graph) {
  std::vector<std::string_view> names;
  names.reserve(graph.node_count());
  for (size_t n = 0; n < graph.node_count(); ++n) names.push_back(graph.name(n));
  return names;
}

std::vector<std::string_view> initializer_names(const mx_strategy::Graph& graph) {
  std::vector<std::string_view> names;
  names.reserve(graph.initializer_count());
  for (size_t i = 0; i < graph.initializer_count(); ++i) names.push_back(graph.initializer_name(i));
  return names;
}

// Places nodes by their names; the buffers are reused from node to node.
// Consecutive names share leading scopes ("/encoder/layer.3/attention/…"
// then "/encoder/layer.3/output/…"), and the walk over the tree is
// deterministic in its steps, so the shared ones are not walked again.
class Namer {
 public:
  explicit Namer(const ModuleSnap& snap) : snap_(snap) {}

  // The module a node's name places it in (into `module`), or false: a
  // scoped name gives its module (snapped to the supplied tree when there
  // is one), "/Mul" the root. Names must stay valid while the Namer lives.
  bool module_named(std::string_view name, std::string& module) {
    if (!scope_steps(name, steps_)) {
      // "/Mul": computed by the root module's own forward (BERT's mask).
      module.clear();
      return is_root_scope_name(name);
    }
    size_t same = 0;
    while (same < steps_.size() && same < previous_.size() && steps_[same] == previous_[same]) ++same;
    // The previous walk resolved lengths_.size() steps; when it stopped
    // within the shared ones, this one stops at the same step.
    const size_t kept = std::min(same, lengths_.size());
    current_.resize(kept ? lengths_[kept - 1] : 0);
    lengths_.resize(kept);
    if (kept == same) snap_.walk(steps_, same, current_, lengths_, scratch_);
    previous_.swap(steps_);
    module = current_;
    // A scope names a called submodule, so "nothing matched" is not the
    // root: leave the node to propagation rather than claim evidence.
    return !module.empty();
  }

 private:
  const ModuleSnap& snap_;
  std::vector<std::string_view> steps_, previous_;  // views into this and the previous name
  std::vector<size_t> lengths_;  // current_'s size after each step the previous walk resolved
  std::string current_, scratch_;
};

}  // namespace

mx_strategy::Answer assign_from_scopes(const mx_strategy::Graph& graph, const mx_strategy::Modules& modules) {
  ModulePaths known = module_paths(modules);
  if (known.empty()) {  // the modules the file itself shows
    // Without repeated calls, snapping is the identity (file_modules.hpp).
    PathPlacement placed = place_at_scope_paths(graph);
    const std::vector<std::string_view> initializers = initializer_names(graph);
    if (!shows_repeated_calls_on_paths(placed.paths, initializers)) return std::move(placed.answer);
    known = modules_shown_by_file(node_names(graph), initializers);
  }
  const ModuleSnap snap(std::move(known));
  Namer namer(snap);
  mx_strategy::Answer answer;
  std::string module;
  for (size_t i = 0; i < graph.node_count(); ++i)
    if (namer.module_named(graph.name(i), module)) answer.place(i, module, "scope");
  return answer;
}

}  // namespace mx::scope
