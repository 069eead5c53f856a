#include "hierarchy/tags.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mx/common/module_path.hpp"

namespace modelexport::hierarchy {
namespace {

bool is_number(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](unsigned char c) { return std::isdigit(c); });
}

// ModuleList/ModuleDict have no forward(): unless a frontend says otherwise
// they are never called and so are not a level of the hierarchy a user sees.
bool is_silent_container(const Module& m) {
  const bool pure = m.class_name == "ModuleList" || m.class_name == "ModuleDict";
  if (pure) return !m.executed.value_or(false);
  return m.class_name == "Sequential" && m.executed == false;
}

bool is_builtin(const Module& m) { return m.qualified_class.rfind("torch.nn.", 0) == 0; }

// Items of a container keep their index so repeated layers stay distinct.
std::string component(const Module& m) {
  const std::string name = mx::common::last_segment(m.path);
  return is_number(name) ? m.class_name + "." + name : m.class_name;
}

}  // namespace

namespace {
std::string derive_tag_with(const ModuleIndex& index, const std::string& path,
                            const TagOptions& opts) {
  std::vector<const Module*> chain;  // module .. root
  for (const Module* m = index.find(path); m; ) {
    chain.push_back(m);
    if (m->path.empty()) break;
    m = index.find(parent_of(*m));
  }
  std::string tag;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const Module& m = **it;
    const bool is_root = m.path.empty();
    if (!is_root && is_silent_container(m)) continue;
    if (!is_root && opts.drop_builtin && is_builtin(m)) continue;
    tag += "/" + component(m);
  }
  return tag;
}
}  // namespace

std::string derive_tag(const Document& doc, const std::string& path, const TagOptions& opts) {
  return derive_tag_with(ModuleIndex(doc), path, opts);
}

void derive_tags(Document& doc, const TagOptions& opts) {
  // The index holds pointers to the modules (their paths are not written
  // below, only tags): records read their module's tag through it, without
  // a second map of a million entries.
  const ModuleIndex index(doc);
  for (auto& m : doc.modules)
    if (m.tag.empty() || opts.overwrite) m.tag = derive_tag_with(index, m.path, opts);
  for (auto& r : doc.nodes) {
    if (!r.tag.empty() && !opts.overwrite) continue;
    if (const Module* m = index.find(r.module)) r.tag = m->tag;
  }
}

}  // namespace modelexport::hierarchy
