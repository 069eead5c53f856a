#include "script_module_tree.hpp"

#include "forward_outline.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>

namespace mx::torchscript {

std::string clean_qualified_name(const std::string& q) {
  std::string out;
  size_t pos = 0;
  while (pos <= q.size()) {
    size_t dot = q.find('.', pos);
    if (dot == std::string::npos) dot = q.size();
    std::string comp = q.substr(pos, dot - pos);
    bool drop = comp == "__torch__" || comp.rfind("___torch_mangle_", 0) == 0;
    if (!drop) out += (out.empty() ? "" : ".") + comp;
    pos = dot + 1;
  }
  return out;
}

namespace {
int64_t count_params(const torch::jit::Module& m, bool recurse) {
  std::unordered_set<const void*> seen;
  int64_t n = 0;
  for (const auto& p : m.named_parameters(recurse)) {
    const void* key = p.value.unsafeGetTensorImpl();
    if (seen.insert(key).second) n += p.value.numel();
  }
  return n;
}
}  // namespace

ModuleTree build_module_tree(const torch::jit::Module& root, const std::map<std::string, int>& order,
                             bool drop_builtin_tags) {
  static const std::set<std::string> containers = {"ModuleList", "ModuleDict", "Sequential", "ParameterList",
                                                   "ParameterDict"};
  std::vector<mx::aten_onnx::ModuleInfo> infos;
  for (const auto& nm : root.named_modules()) {
    mx::aten_onnx::ModuleInfo in;
    in.path = nm.name;
    auto qn = nm.value.type()->name();
    in.qualified_class = clean_qualified_name(qn ? qn->qualifiedName() : "?");
    in.cls = mx::aten_onnx::class_of(in.qualified_class);
    in.parameters = count_params(nm.value, true);
    in.own_parameters = count_params(nm.value, false);
    in.forward = forward_outline(nm.value, in.path);
    auto it = order.find(in.path);
    in.executed = it != order.end();
    in.execution_order = in.executed ? it->second : -1;
    in.container = containers.count(in.cls) || !nm.value.find_method("forward");
    infos.push_back(std::move(in));
  }
  return mx::aten_onnx::build_module_tree(infos, drop_builtin_tags);
}

}  // namespace mx::torchscript
