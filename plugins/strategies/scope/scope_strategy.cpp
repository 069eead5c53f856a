#include "scope_strategy.hpp"

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

}  // namespace

json assign_from_scopes(const json& request) {
  const ModuleSnap snap(module_paths(request.value("modules", json::array())));
  json assignments = json::array();
  const json& nodes = request.at("graph").at("nodes");
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string name = nodes[i].value("name", "");
    auto steps = scope_steps(name);
    if (!steps) {
      // "/Mul": computed by the root module's own forward (BERT's mask).
      if (is_root_scope_name(name))
        assignments.push_back({{"node", nodes[i].value("index", i)}, {"module", ""},
                               {"evidence", "scope"}});
      continue;
    }
    std::string module;
    if (snap.empty()) {
      for (const auto& s : *steps) module += (module.empty() ? "" : ".") + s;
    } else {
      module = snap.resolve(*steps);
      // A scope names a called submodule, so "nothing matched" is not the
      // root: leave the node to propagation rather than claim evidence.
      if (module.empty()) continue;
    }
    assignments.push_back({{"node", nodes[i].value("index", i)},
                           {"module", module}, {"evidence", "scope"}});
  }
  return {{"schema", "modelexport.strategy-response/1"}, {"assignments", assignments}};
}

}  // namespace mx_scope
