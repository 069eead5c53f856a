#include "module_tree.h"

#include "forward_outline.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>

namespace mxts {

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
bool numeric(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit((unsigned char)c); });
}
std::string last_comp(const std::string& path) {
  auto d = path.rfind('.');
  return d == std::string::npos ? path : path.substr(d + 1);
}
std::string parent_of(const std::string& path) {
  auto d = path.rfind('.');
  return d == std::string::npos ? "" : path.substr(0, d);
}
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
  struct Info {
    std::string path, cls, qual;
    std::vector<std::string> children;
    nlohmann::json forward;  // forward_outline(); null without a forward
    int64_t params = 0, own = 0;
    bool executed = false, container = false;
    int order = -1;
  };
  std::vector<Info> infos;
  std::map<std::string, size_t> index;
  for (const auto& nm : root.named_modules()) {
    Info in;
    in.path = nm.name;
    auto qn = nm.value.type()->name();
    in.qual = clean_qualified_name(qn ? qn->qualifiedName() : "?");
    in.cls = last_comp(in.qual);
    in.params = count_params(nm.value, true);
    in.forward = forward_outline(nm.value, in.path);
    in.own = count_params(nm.value, false);
    auto it = order.find(in.path);
    in.executed = it != order.end();
    in.order = in.executed ? it->second : -1;
    static const std::set<std::string> containers = {"ModuleList", "ModuleDict", "Sequential",
                                                      "ParameterList", "ParameterDict"};
    in.container = containers.count(in.cls) || !nm.value.find_method("forward");
    index[in.path] = infos.size();
    infos.push_back(in);
  }
  for (auto& in : infos)
    if (!in.path.empty()) {
      auto p = index.find(parent_of(in.path));
      if (p != index.end()) infos[p->second].children.push_back(in.path);
    }
  ModuleTree t;
  t.root_class = infos.empty() ? "Model" : infos[0].cls;
  t.root_qualified = infos.empty() ? "" : infos[0].qual;
  for (auto& in : infos) {
    // tag: one component per module from the root
    std::string tag;
    std::string prefix;
    std::vector<std::string> chain = {""};
    if (!in.path.empty()) {
      size_t pos = 0;
      while (pos <= in.path.size()) {
        size_t dot = in.path.find('.', pos);
        if (dot == std::string::npos) dot = in.path.size();
        chain.push_back(in.path.substr(0, dot));
        pos = dot + 1;
      }
    }
    for (const auto& p : chain) {
      auto ix = index.find(p);
      if (ix == index.end()) continue;
      const Info& m = infos[ix->second];
      bool is_root = p.empty();
      if (!is_root && !m.executed && m.container) continue;
      if (!is_root && drop_builtin_tags && m.qual.rfind("torch.nn.", 0) == 0) continue;
      std::string name = last_comp(p);
      tag += "/" + m.cls + (!is_root && numeric(name) ? "." + name : "");
    }
    t.tags[in.path] = tag;
    nlohmann::json j;
    j["path"] = in.path;
    j["class"] = in.cls;
    j["qualified_class"] = in.qual;
    j["parent"] = in.path.empty() ? nlohmann::json(nullptr) : nlohmann::json(parent_of(in.path));
    j["children"] = in.children;
    j["tag"] = tag;
    j["parameters"] = in.params;
    j["own_parameters"] = in.own;
    j["executed"] = in.executed;
    j["execution_order"] = in.executed ? nlohmann::json(in.order) : nlohmann::json(nullptr);
    if (!in.forward.is_null()) j["forward"] = std::move(in.forward);
    t.modules.push_back(j);
  }
  return t;
}

}  // namespace mxts
