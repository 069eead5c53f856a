#include "scope_strategy.hpp"

#include <optional>

#include "file_modules.hpp"
#include "module_snap.hpp"
#include "scope_name.hpp"

namespace mx_scope {
namespace {

using json = nlohmann::json;

std::set<std::string> module_paths(const mx_strategy::Modules& modules) {
  std::set<std::string> paths;
  for (size_t i = 0; i < modules.count(); ++i) paths.insert(modules.path(i));
  return paths;
}

// The module a node's name places it in, or nothing: a scoped name gives its
// module (snapped to the supplied tree when there is one), "/Mul" the root.
std::optional<std::string> module_named(const std::string& name, const ModuleSnap& snap) {
  auto steps = scope_steps(name);
  if (!steps) {
    // "/Mul": computed by the root module's own forward (BERT's mask).
    if (is_root_scope_name(name)) return std::string();
    return std::nullopt;
  }
  std::string module = snap.resolve(*steps);
  // A scope names a called submodule, so "nothing matched" is not the
  // root: leave the node to propagation rather than claim evidence.
  if (module.empty()) return std::nullopt;
  return module;
}

// Without a supplied tree, the modules the file itself shows.
std::set<std::string> modules_of_file(const mx_strategy::Graph& graph) {
  std::vector<std::string> names, initializers;
  for (size_t n = 0; n < graph.node_count(); ++n) names.emplace_back(graph.name(n));
  for (size_t i = 0; i < graph.initializer_count(); ++i)
    initializers.emplace_back(graph.initializer_name(i));
  return modules_shown_by_file(names, initializers);
}

}  // namespace

mx_strategy::Answer assign_from_scopes(const mx_strategy::Graph& graph,
                                       const mx_strategy::Modules& modules) {
  std::set<std::string> known = module_paths(modules);
  if (known.empty()) known = modules_of_file(graph);
  const ModuleSnap snap(std::move(known));
  mx_strategy::Answer answer;
  for (size_t i = 0; i < graph.node_count(); ++i)
    if (auto module = module_named(std::string(graph.name(i)), snap))
      answer.assignments.push_back({i, std::move(*module), "scope"});
  return answer;
}

}  // namespace mx_scope
