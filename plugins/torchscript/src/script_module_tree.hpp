// Module tree of a TorchScript module as modelexport.hierarchy/1 "modules".
#pragma once
#include <torch/script.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "mx/aten_onnx/module_tree.hpp"

namespace mx::torchscript {

std::string clean_qualified_name(const std::string& qualified);  // strips __torch__ / mangles

// The document's module list and tags (rules in the shared layer).
using ModuleTree = mx::aten_onnx::ModuleTree;

// order: path -> execution order (absent = never executed).
ModuleTree build_module_tree(const torch::jit::Module& root, const std::map<std::string, int>& order,
                             bool drop_builtin_tags);

}  // namespace mx::torchscript
