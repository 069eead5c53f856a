#include "model/dynamo_namespace.hpp"

#include <vector>

namespace modelexport::model {
namespace {

const std::string& class_of(const hierarchy::Module& m) {
  return m.qualified_class.empty() ? m.class_name : m.qualified_class;
}

// Dynamo names a scope relative to the enclosing *called* module, so an
// uncalled container's name is folded into its item's: "layer.0".
std::string relative_name(const std::string& path, const std::string& ancestor) {
  // Documents are validated (a parent is a prefix of its child's path); the
  // check keeps this total anyway.
  if (ancestor.empty() || path.compare(0, ancestor.size() + 1, ancestor + ".") != 0) return path;
  return path.substr(ancestor.size() + 1);
}

// Everything before the node's own "name: op": the called modules from the
// root to the node's module, each "relative name: class/".
std::string module_prefix(const hierarchy::ModuleIndex& index, const std::string& module_path) {
  std::vector<const hierarchy::Module*> chain;  // node's module .. root
  for (const auto* m = index.find(module_path); m;) {
    chain.push_back(m);
    if (m->path.empty()) break;
    m = index.find(hierarchy::parent_of(*m));
  }
  std::string out;
  std::string scope;  // path of the last module written
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const auto& m = **it;
    const bool is_target = it + 1 == chain.rend();
    if (!m.path.empty() && !is_target && m.executed == false) continue;
    if (!out.empty()) out += "/";
    out += (m.path.empty() ? std::string() : relative_name(m.path, scope)) + ": " + class_of(m);
    scope = m.path;
  }
  if (!out.empty()) out += "/";
  return out;
}

}  // namespace

const std::string& DynamoNamespaces::prefix(const std::string& module_path) {
  if (last_module_ != module_path) {
    last_prefix_ = module_prefix(index_, module_path);
    last_module_ = module_path;
  }
  return last_prefix_;
}

std::string DynamoNamespaces::of(const std::string& module_path, const std::string& node_name,
                                 const std::string& op_type) {
  const std::string& before = prefix(module_path);
  std::string out;
  out.reserve(before.size() + node_name.size() + 2 + op_type.size());
  out += before;
  out += node_name;
  out += ": ";
  out += op_type;
  return out;
}

}  // namespace modelexport::model
