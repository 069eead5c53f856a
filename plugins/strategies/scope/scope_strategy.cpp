#include "scope_strategy.hpp"

#include <optional>

#include "file_modules.hpp"
#include "module_snap.hpp"
#include "scope_name.hpp"

namespace mx_scope {
namespace {

using json = nlohmann::json;

std::set<std::string> module_paths(const json& modules) {
  std::set<std::string> paths;
  if (!modules.is_array()) return paths;
  for (const auto& m : modules)
    if (m.is_object() && m.contains("path") && m.at("path").is_string())
      paths.insert(m.at("path").get<std::string>());
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
std::set<std::string> modules_of_file(const json& graph) {
  std::vector<std::string> names, initializers;
  for (const auto& n : graph.at("nodes")) names.push_back(n.value("name", ""));
  if (graph.contains("initializers") && graph.at("initializers").is_array())
    for (const auto& i : graph.at("initializers"))
      if (i.is_string()) initializers.push_back(i.get<std::string>());
  return modules_shown_by_file(names, initializers);
}

}  // namespace

json assign_from_scopes(const json& request) {
  std::set<std::string> known = module_paths(request.value("modules", json::array()));
  if (known.empty()) known = modules_of_file(request.at("graph"));
  const ModuleSnap snap(std::move(known));
  json assignments = json::array();
  const json& nodes = request.at("graph").at("nodes");
  for (size_t i = 0; i < nodes.size(); ++i)
    if (auto module = module_named(nodes[i].value("name", ""), snap))
      assignments.push_back({{"node", nodes[i].value("index", i)},
                             {"module", *module}, {"evidence", "scope"}});
  return {{"schema", "modelexport.strategy-response/1"}, {"assignments", assignments}};
}

}  // namespace mx_scope
