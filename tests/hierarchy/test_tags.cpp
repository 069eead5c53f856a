// Tag derivation from the module tree (docs/hierarchy-schema.md, `tag`).
#include <algorithm>

#include <doctest/doctest.h>

#include "hierarchy/parse.hpp"
#include "hierarchy/tags.hpp"
#include "mx/common/class_path_tag.hpp"

using namespace mx::hierarchy;

namespace {

// The oracle: one module's tag by walking from it to the root through the
// index, each level's component by the one class-path rule (derive_tags
// builds every tag from its parent's instead).
std::string derive_tag(const Document& doc, const std::string& path, const TagOptions& opts) {
  const ModuleIndex index(doc);
  std::vector<const Module*> chain;  // module .. root
  for (const Module* m = index.find(path); m;) {
    chain.push_back(m);
    if (m->path.empty()) break;
    m = index.find(parent_view(*m));
  }
  std::string tag;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const Module& m = **it;
    tag += mx::common::tag_component({m.path, m.class_name, m.qualified_class(), m.executed(), std::nullopt},
                                     opts.drop_builtin);
  }
  return tag;
}

// A BERT-shaped tree: the ModuleList `encoder.layer` is never called.
Document bert_like() {
  return parse_document_text(R"({"schema": "modelexport.hierarchy/1", "nodes": [], "modules": [
    {"path": "", "class": "BertModel", "qualified_class": "transformers.BertModel"},
    {"path": "encoder", "class": "BertEncoder", "qualified_class": "transformers.BertEncoder", "parent": ""},
    {"path": "encoder.layer", "class": "ModuleList",
     "qualified_class": "torch.nn.modules.container.ModuleList", "parent": "encoder", "executed": false},
    {"path": "encoder.layer.0", "class": "BertLayer", "qualified_class": "transformers.BertLayer",
     "parent": "encoder.layer"},
    {"path": "encoder.layer.0.query", "class": "Linear",
     "qualified_class": "torch.nn.modules.linear.Linear", "parent": "encoder.layer.0"},
    {"path": "head", "class": "Sequential", "qualified_class": "torch.nn.modules.container.Sequential",
     "parent": "", "executed": false},
    {"path": "head.0", "class": "Linear", "qualified_class": "torch.nn.modules.linear.Linear",
     "parent": "head"}]})",
                             "test");
}
}  // namespace

TEST_CASE("tags: class path from the root") {
  Document doc = bert_like();
  SUBCASE("root") {
    CHECK(derive_tag(doc, "", {}) == "/BertModel");
  }
  SUBCASE("uncalled ModuleList contributes nothing, items carry their index") {
    CHECK(derive_tag(doc, "encoder.layer", {}) == "/BertModel/BertEncoder");
    CHECK(derive_tag(doc, "encoder.layer.0", {}) == "/BertModel/BertEncoder/BertLayer.0");
  }
  SUBCASE("built-ins kept by default") {
    CHECK(derive_tag(doc, "encoder.layer.0.query", {}) == "/BertModel/BertEncoder/BertLayer.0/Linear");
  }
  SUBCASE("drop_builtin leaves torch.nn classes out") {
    TagOptions opts;
    opts.drop_builtin = true;
    CHECK(derive_tag(doc, "encoder.layer.0.query", opts) == "/BertModel/BertEncoder/BertLayer.0");
    CHECK(derive_tag(doc, "head.0", opts) == "/BertModel");
  }
  SUBCASE("uncalled Sequential contributes nothing") {
    CHECK(derive_tag(doc, "head.0", {}) == "/BertModel/Linear.0");
  }
}

TEST_CASE("tags: derive_tags fills modules and records, keeps given tags") {
  Document doc = bert_like();
  doc.modules[1].tag = "/Custom";
  NodeRecord& r = doc.nodes.emplace_back();
  r.name = "n0";
  r.module = "encoder.layer.0.query";
  r.evidence = Evidence::direct;
  derive_tags(doc, {});
  CHECK(doc.modules[1].tag == "/Custom");
  CHECK(doc.modules[3].tag == "/BertModel/BertEncoder/BertLayer.0");
  CHECK(doc.nodes[0].tag == "/BertModel/BertEncoder/BertLayer.0/Linear");
  SUBCASE("overwrite recomputes") {
    TagOptions opts;
    opts.overwrite = true;
    derive_tags(doc, opts);
    CHECK(doc.modules[1].tag == "/BertModel/BertEncoder");
  }
}

TEST_CASE("tags: derive_tags (built parent first) gives every module derive_tag's walk") {
  // Children before parents, a parent that is no module (the walk stops
  // there), a repeated path (the first one's tag), both options.
  Document doc = bert_like();
  std::reverse(doc.modules.begin(), doc.modules.end());
  Module orphan;
  orphan.path = "ghost.x";
  orphan.class_name = "Ghost";
  doc.modules.push_back(orphan);
  Module again = doc.modules[0];
  again.class_name = "Other";
  doc.modules.push_back(again);
  for (bool drop : {false, true}) {
    TagOptions opts;
    opts.drop_builtin = drop;
    opts.overwrite = true;
    Document d = doc;
    derive_tags(d, opts);
    for (const auto& m : d.modules) {
      CAPTURE(m.path);
      CHECK(m.tag == derive_tag(doc, m.path, opts));
    }
    CHECK(d.modules.back().tag == d.modules.front().tag);
  }
}
