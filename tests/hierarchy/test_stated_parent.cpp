// A module's "parent": its own, or (parent_from_path, what tagging writes)
// its path's prefix, which every reader gets through
// hierarchy::stated_parent: the document's text and JSON, the consistency
// checks, inspect.
#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "hierarchy/document.hpp"
#include "hierarchy/document_text.hpp"
#include "hierarchy/parse.hpp"
#include "hierarchy_dom_writer.hpp"
#include "hierarchy/tree_check.hpp"

using namespace mx::hierarchy;

namespace {

Module module(std::string path, std::vector<std::string> children = {}) {
  Module m;
  m.path = std::move(path);
  m.class_name = "M";
  m.tag = "/M";
  m.children = std::move(children);
  return m;
}

// "", "a", "a.b": parents stated as text, or taken from the paths.
Document tree(bool from_path) {
  Document doc;
  doc.modules = {module("", {"a"}), module("a", {"a.b"}), module("a.b")};
  for (size_t i = 1; i < doc.modules.size(); ++i) {
    Module& m = doc.modules[i];
    if (from_path) m.parent_from_path = true;
    else m.parent = std::string(parent_view(m));
  }
  return doc;
}

}  // namespace

TEST_CASE("stated_parent: its own, the path's prefix, or none") {
  Module m = module("a.b");
  CHECK_FALSE(stated_parent(m));  // a file's module without "parent"
  m.parent_from_path = true;
  CHECK(stated_parent(m) == "a");
  m.parent = "x";  // a stated parent wins (whoever states one clears the flag)
  CHECK(stated_parent(m) == "x");
  Module root = module("");
  root.parent_from_path = true;
  CHECK_FALSE(stated_parent(root));  // the root has none
}

TEST_CASE("stated_parent: a tree whose parents come from the paths reads as one that states them") {
  const Document from_path = tree(true), stated = tree(false);
  CHECK(modules_text(from_path.modules) == modules_text(stated.modules));
  CHECK(document_text(from_path, 2) == document_text(stated, 2));
  CHECK(document_to_json(from_path) == document_to_json(stated));
  CHECK(module_tree_problems(from_path.modules).empty());
  CHECK_NOTHROW(validate_consistency(from_path, "h"));
  SUBCASE("and a broken link is reported the same way") {
    Document a = tree(true), b = tree(false);
    a.modules[1].children.clear();
    b.modules[1].children.clear();
    const auto pa = module_tree_problems(a.modules), pb = module_tree_problems(b.modules);
    REQUIRE(pa.size() == 1);
    REQUIRE(pb.size() == 1);
    CHECK(pa[0].message == pb[0].message);
    CHECK(pa[0].message == "module 'a.b' is not among the children of its parent 'a'");
  }
}
