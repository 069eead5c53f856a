#include "scope_strategy.hpp"

#include "file_modules.hpp"
#include "module_snap.hpp"
#include "scope_name.hpp"

namespace mx_scope {
namespace {

ModulePaths module_paths(const mx_strategy::Modules& modules) {
  ModulePaths paths;
  paths.reserve(modules.count());
  for (size_t i = 0; i < modules.count(); ++i) paths.add(modules.path(i));
  return paths;
}

// Without a supplied tree, the modules the file itself shows.
ModulePaths modules_of_file(const mx_strategy::Graph& graph) {
  std::vector<std::string_view> names, initializers;  // views the graph keeps valid
  names.reserve(graph.node_count());
  for (size_t n = 0; n < graph.node_count(); ++n) names.push_back(graph.name(n));
  initializers.reserve(graph.initializer_count());
  for (size_t i = 0; i < graph.initializer_count(); ++i)
    initializers.push_back(graph.initializer_name(i));
  return modules_shown_by_file(names, initializers);
}

// Places nodes by their names; the buffers are reused from node to node.
class Namer {
 public:
  explicit Namer(const ModuleSnap& snap) : snap_(snap) {}

  // The module a node's name places it in (into `module`), or false: a
  // scoped name gives its module (snapped to the supplied tree when there
  // is one), "/Mul" the root.
  bool module_named(std::string_view name, std::string& module) {
    if (!scope_steps(name, steps_)) {
      // "/Mul": computed by the root module's own forward (BERT's mask).
      module.clear();
      return is_root_scope_name(name);
    }
    snap_.resolve(steps_, module, scratch_);
    // A scope names a called submodule, so "nothing matched" is not the
    // root: leave the node to propagation rather than claim evidence.
    return !module.empty();
  }

 private:
  const ModuleSnap& snap_;
  std::vector<std::string_view> steps_;
  std::string scratch_;
};

}  // namespace

mx_strategy::Answer assign_from_scopes(const mx_strategy::Graph& graph,
                                       const mx_strategy::Modules& modules) {
  ModulePaths known = module_paths(modules);
  if (known.empty()) known = modules_of_file(graph);
  const ModuleSnap snap(std::move(known));
  Namer namer(snap);
  mx_strategy::Answer answer;
  std::string module;
  for (size_t i = 0; i < graph.node_count(); ++i)
    if (namer.module_named(graph.name(i), module))
      answer.assignments.push_back({i, module, "scope"});
  return answer;
}

}  // namespace mx_scope
