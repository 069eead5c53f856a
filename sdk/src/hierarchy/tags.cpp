#include "hierarchy/tags.hpp"

#include <vector>

#include "mx/common/class_path_tag.hpp"

namespace mx::hierarchy {
namespace {

// This module's part of its tag ("" for one the tags leave out), by the one
// class-path rule; a document does not say which modules are containers,
// so the rule judges them by class.
std::string own_component(const Module& m, const TagOptions& opts) {
  return mx::common::tag_component({m.path, m.class_name, m.qualified_class(), m.executed(), std::nullopt},
                                   opts.drop_builtin);
}

}  // namespace

void derive_tags(Document& doc, const TagOptions& opts) {
  derive_tags(doc, ModuleIndex(doc), opts);
}

namespace {

// Every module's tag at once: a tag is its parent's tag plus its own
// component, so each is built from the one above it (one string per
// module, no walk to the root per module; the walk per module is the
// tests' oracle, tests/hierarchy/test_tags.cpp).
std::vector<std::string> all_tags(const Document& doc, const ModuleIndex& index, const TagOptions& opts) {
  const std::vector<size_t>& parents = index.parents();
  const size_t n = doc.modules.size();
  std::vector<std::string> tags(n);
  std::vector<char> state(n, 0);  // 0 = to do, 1 = on the current walk, 2 = done
  std::vector<size_t> walk;
  for (size_t start = 0; start < n; ++start) {
    // Up to the first module whose tag is known (or the top of the chain),
    // then down again. (A cycle, which the checks refuse, ends the walk.)
    walk.clear();
    for (size_t i = start; i != ModuleIndex::kNone && state[i] == 0; i = parents[i]) {
      state[i] = 1;
      walk.push_back(i);
    }
    for (auto it = walk.rbegin(); it != walk.rend(); ++it) {
      const size_t i = *it, p = parents[i];
      tags[i] = (p != ModuleIndex::kNone && state[p] == 2 ? tags[p] : std::string()) +
                own_component(doc.modules[i], opts);
      state[i] = 2;
    }
  }
  return tags;
}

}  // namespace

void derive_tags(Document& doc, const ModuleIndex& index, const TagOptions& opts) {
  // The index holds pointers to the modules (their paths are not written
  // below, only tags): records read their module's tag through it, without
  // a second map of a million entries.
  bool any = false;
  for (const auto& m : doc.modules) any = any || m.tag.empty() || opts.overwrite;
  if (any) {
    std::vector<std::string> tags = all_tags(doc, index, opts);
    const bool unique = index.size() == doc.modules.size();
    for (size_t i = 0; i < doc.modules.size(); ++i) {
      Module& m = doc.modules[i];
      if (!m.tag.empty() && !opts.overwrite) continue;
      // A repeated path (an unchecked document) takes the first one's tag,
      // as a walk through the index does.
      m.tag = unique ? std::move(tags[i]) : tags[index.position(*index.find(m.path))];
    }
  }
  for (auto& r : doc.nodes) {
    if ((!r.tag.empty() || r.tag_from_module) && !opts.overwrite) continue;
    if (const Module* m = index.find(r.module)) r.tag = m->tag, r.tag_from_module = false;
  }
}

}  // namespace mx::hierarchy
