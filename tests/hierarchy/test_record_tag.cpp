// A record's tag: its own, or (tag_from_module, what tagging writes) its
// module's, which every writer reads through hierarchy::record_tag: the
// document's text and JSON, the C API's record, the save's node metadata.
#include <doctest/doctest.h>

#include <memory>
#include <utility>

#include "hierarchy/document.hpp"
#include "hierarchy/document_text.hpp"
#include "hierarchy_dom_writer.hpp"
#include "hierarchy/tags.hpp"

using namespace mx::hierarchy;

namespace {

Module module(std::string path, std::string class_name, std::string tag) {
  Module m;
  m.path = std::move(path);
  m.class_name = std::move(class_name);
  m.tag = std::move(tag);
  if (!m.path.empty()) m.parent = "";
  return m;
}

// A root and one child; one record on the child that reads its tag from it.
Document net() {
  Document doc;
  doc.modules.push_back(module("", "Net", "/Net"));
  doc.modules.back().children = {"fc"};
  doc.modules.push_back(module("fc", "Linear", "/Net/Linear"));
  NodeRecord r;
  r.name = "n0";
  r.module = "fc";
  r.evidence = Evidence::scope;
  r.index = 0;
  r.tag_from_module = true;
  r.module_at = 1;
  doc.nodes.push_back(std::move(r));
  return doc;
}

}  // namespace

TEST_CASE("record_tag: a record's own tag, else its module's") {
  Document doc = net();
  NodeRecord& r = doc.nodes[0];
  SUBCASE("the module at the record's position") {
    CHECK(record_tag(doc, r) == "/Net/Linear");
  }
  SUBCASE("its own tag when it has one") {
    r.tag_from_module = false;
    r.tag = "/Own";
    CHECK(record_tag(doc, r) == "/Own");
    r.tag.clear();
    CHECK(record_tag(doc, r).empty());  // "" = derive: not the module's until derived
  }
  SUBCASE("a position that no longer holds the module: found by path") {
    std::swap(doc.modules[0], doc.modules[1]);  // an edit in place
    CHECK(record_tag(doc, r) == "/Net/Linear");
    r.module_at = kNoPosition;
    CHECK(record_tag(doc, r) == "/Net/Linear");
    doc.keep_module_index(std::make_unique<const ModuleIndex>(doc));
    CHECK(record_tag(doc, r) == "/Net/Linear");
  }
  SUBCASE("a module that is gone: no tag") {
    doc.modules.pop_back();
    CHECK(record_tag(doc, r).empty());
  }
}

TEST_CASE("record_tag: writers read the module's tag as if the record held a copy") {
  const Document reading = net();
  Document copied = net();
  copied.nodes[0].tag_from_module = false;
  copied.nodes[0].tag = "/Net/Linear";
  CHECK(document_text(reading, -1) == document_text(copied, -1));
  CHECK(document_text(reading, 2) == document_text(copied, 2));
  CHECK(document_to_json(reading) == document_to_json(copied));
  CHECK(record_to_json(reading, reading.nodes[0], false) == record_to_json(copied, copied.nodes[0], false));
  CHECK(record_to_json(reading, reading.nodes[0], false)["tag"] == "/Net/Linear");
}

TEST_CASE("record_tag: derive_tags leaves a record that reads its module's tag; overwrite gives it one") {
  Document doc = net();
  derive_tags(doc, {});
  CHECK(doc.nodes[0].tag_from_module);
  CHECK(doc.nodes[0].tag.empty());
  CHECK(record_tag(doc, doc.nodes[0]) == "/Net/Linear");
  TagOptions overwrite;
  overwrite.overwrite = true;
  derive_tags(doc, overwrite);
  CHECK_FALSE(doc.nodes[0].tag_from_module);
  CHECK(doc.nodes[0].tag == doc.modules[1].tag);
  CHECK(record_tag(doc, doc.nodes[0]) == doc.modules[1].tag);
}
