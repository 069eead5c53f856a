// The "modules" part of the hierarchy document (docs/hierarchy-schema.md)
// from what a frontend knows of each module: path, class, parameter counts,
// whether and when it ran. Tags follow the one class-path rule of
// mx/common/class_path_tag.hpp, with the container flag the frontend knows.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace mx::aten_onnx {

struct ModuleInfo {
  std::string path;             // named_modules() path, "" = root
  std::string cls;              // class name ("BertLayer")
  std::string qualified_class;  // "transformers.models.bert.modeling_bert.BertLayer"; "" = unknown (omitted)
  int64_t parameters = 0, own_parameters = 0;
  bool executed = false;
  int execution_order = -1;
  // A container (ModuleList, ModuleDict, Sequential, ...) or a module
  // without forward: it adds no tag component unless it ran.
  bool container = false;
  nlohmann::json forward;  // optional outline; null = absent
};

struct ModuleTree {
  nlohmann::json modules = nlohmann::json::array();
  std::map<std::string, std::string> tags;  // path -> tag
  std::string root_class, root_qualified;
};

// `infos` in named_modules() order (root first). Parents are the path
// prefixes; a module whose parent is missing is still listed.
ModuleTree build_module_tree(const std::vector<ModuleInfo>& infos, bool drop_builtin_tags);

// The class name of a qualified name ("torch.nn.modules.linear.Linear" -> "Linear").
std::string class_of(const std::string& qualified);

}  // namespace mx::aten_onnx
