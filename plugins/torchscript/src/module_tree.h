// Module tree of a TorchScript module as modelexport.hierarchy/1 "modules".
#pragma once
#include <torch/script.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace mxts {

std::string clean_qualified_name(const std::string& qualified);  // strips __torch__ / mangles

struct ModuleTree {
  nlohmann::json modules = nlohmann::json::array();
  std::map<std::string, std::string> tags;  // path -> tag
  std::string root_class, root_qualified;
};

// order: path -> execution order (absent = never executed).
ModuleTree build_module_tree(const torch::jit::Module& root, const std::map<std::string, int>& order,
                             bool drop_builtin_tags);

}  // namespace mxts
