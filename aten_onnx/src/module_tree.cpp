#include "mx/aten_onnx/module_tree.hpp"

#include "mx/common/class_path_tag.hpp"
#include "mx/common/module_path.hpp"

namespace mx::aten_onnx {
using common::last_segment;
using common::parent_path;
namespace {

// "", "a", "a.b", "a.b.c" for "a.b.c".
std::vector<std::string> chain_from_root(const std::string& path) {
  std::vector<std::string> chain = {""};
  if (path.empty()) return chain;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t dot = path.find('.', pos);
    if (dot == std::string::npos) dot = path.size();
    chain.push_back(path.substr(0, dot));
    pos = dot + 1;
  }
  return chain;
}

}  // namespace

// A qualified class name splits at dots as a module path does.
std::string class_of(const std::string& qualified) {
  return last_segment(qualified);
}

ModuleTree build_module_tree(const std::vector<ModuleInfo>& infos, bool drop_builtin_tags) {
  std::map<std::string, size_t> index;
  for (size_t k = 0; k < infos.size(); ++k) index.emplace(infos[k].path, k);
  std::vector<std::vector<std::string>> children(infos.size());
  for (const auto& in : infos)
    if (!in.path.empty()) {
      auto p = index.find(parent_path(in.path));
      if (p != index.end()) children[p->second].push_back(in.path);
    }
  ModuleTree t;
  t.root_class = infos.empty() ? "Model" : infos[0].cls;
  t.root_qualified = infos.empty() ? "" : infos[0].qualified_class;
  for (size_t k = 0; k < infos.size(); ++k) {
    const ModuleInfo& in = infos[k];
    std::string tag;
    for (const auto& p : chain_from_root(in.path)) {
      auto ix = index.find(p);
      if (ix == index.end()) continue;
      const ModuleInfo& m = infos[ix->second];
      tag += common::tag_component({p, m.cls, m.qualified_class, m.executed, m.container}, drop_builtin_tags);
    }
    t.tags[in.path] = tag;
    nlohmann::json j;
    j["path"] = in.path;
    j["class"] = in.cls;
    if (!in.qualified_class.empty()) j["qualified_class"] = in.qualified_class;  // empty: unknown
    j["parent"] = in.path.empty() ? nlohmann::json(nullptr) : nlohmann::json(parent_path(in.path));
    j["children"] = children[k];
    j["tag"] = tag;
    j["parameters"] = in.parameters;
    j["own_parameters"] = in.own_parameters;
    j["executed"] = in.executed;
    j["execution_order"] = in.executed ? nlohmann::json(in.execution_order) : nlohmann::json(nullptr);
    if (!in.forward.is_null()) j["forward"] = in.forward;
    t.modules.push_back(std::move(j));
  }
  return t;
}

}  // namespace mx::aten_onnx
