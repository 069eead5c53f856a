// What the dynamo namespace tests compare with (model/dynamo_namespace): a
// module built from its path, and the namespace prefix by its definition,
// walking parents by path each time (what the kept chains, the position
// hints and the module lookup must reproduce).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "hierarchy/document.hpp"

namespace mx::testing {

inline hierarchy::Module dynamo_module(const std::string& path, const std::string& cls,
                                       std::optional<bool> executed = std::nullopt) {
  hierarchy::Module m;
  m.path = path;
  m.class_name = cls;
  if (!path.empty()) m.parent = path.find('.') == std::string::npos ? "" : path.substr(0, path.rfind('.'));
  if (executed) m.details().executed = executed;
  return m;
}

// An encoder of `layers` layers with uncalled containers at two levels
// (layer k itself uncalled when k % period == uncalled) and a module whose
// parent is no module, in path order.
inline std::vector<hierarchy::Module> layered_modules(int layers, int period, int uncalled) {
  std::vector<hierarchy::Module> modules = {dynamo_module("", "Root"),
                                            dynamo_module("encoder", "Encoder", true),
                                            dynamo_module("encoder.layer", "ModuleList", false)};
  for (int k = 0; k < layers; ++k) {
    const std::string layer = "encoder.layer." + std::to_string(k);
    modules.push_back(dynamo_module(layer, "Layer", k % period != uncalled));
    modules.push_back(dynamo_module(layer + ".blocks", "ModuleList", false));
    modules.push_back(dynamo_module(layer + ".blocks.0", "Block", true));
    modules.push_back(dynamo_module(layer + ".blocks.0.dense", "Linear", true));
    modules.push_back(dynamo_module(layer + ".act", "ReLU", true));
  }
  modules.push_back(dynamo_module("orphan.child", "Lost", true));
  modules.back().parent = "orphan";
  return modules;
}

// The called modules from the root, each named relative to the last one
// written; "" when `path` is no module.
inline std::string reference_prefix(const std::vector<hierarchy::Module>& modules, const std::string& path) {
  const hierarchy::ModuleIndex index(modules);
  const hierarchy::Module* m = index.find(path);
  if (!m) return "";
  std::vector<const hierarchy::Module*> chain;  // m .. root
  for (const hierarchy::Module* at = m; at;) {
    chain.push_back(at);
    if (at->path.empty()) break;
    const size_t parent = index.parents()[index.position(*at)];
    at = parent == hierarchy::ModuleIndex::kNone ? nullptr : &modules[parent];
  }
  std::string text, scope;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const hierarchy::Module& c = **it;
    // The node's own module is always written; an uncalled container above
    // it is folded into its item's name.
    if (&c != m && !c.path.empty() && c.executed() == false) continue;
    if (!text.empty()) text += '/';
    std::string name = c.path;
    if (!scope.empty() && c.path.size() > scope.size() && c.path.compare(0, scope.size(), scope) == 0 &&
        c.path[scope.size()] == '.')
      name = c.path.substr(scope.size() + 1);
    text += name + ": " + (c.qualified_class().empty() ? c.class_name : c.qualified_class());
    scope = c.path;
  }
  return text + "/";
}

}  // namespace mx::testing
