// Rebuilding the module tree and tags from assigned paths.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include <mx/common/module_path.hpp>

#include "hierarchy/parse.hpp"
#include "hierarchy/tree_check.hpp"
#include "tagging/rebuilt_tree.hpp"

using namespace mx;
using nlohmann::json;

namespace {

const hierarchy::Module& entry(const std::vector<hierarchy::Module>& modules, const std::string& path) {
  for (const auto& m : modules)
    if (m.path == path) return m;
  FAIL("no module '" << path << "'");
  return modules.front();
}

using Paths = std::vector<std::string>;

}  // namespace

TEST_CASE("every prefix of a used path becomes a module") {
  ModuleTree tree;
  tree.add_path("encoder.layer.0.attention");
  const auto modules = tree.to_modules();
  CHECK(modules.size() == 5);
  CHECK_FALSE(hierarchy::stated_parent(entry(modules, "")));
  CHECK(entry(modules, "encoder.layer").children == Paths{"encoder.layer.0"});
  CHECK(hierarchy::stated_parent(entry(modules, "encoder.layer.0")) == "encoder.layer");
  CHECK(entry(modules, "encoder").class_name == "");
}

TEST_CASE("tags without classes mirror scoped names") {
  ModuleTree tree;
  tree.add_path("encoder.layer.0.attention");
  CHECK(tree.tag_of("") == "/");
  CHECK(tree.tag_of("encoder.layer.0.attention") == "/encoder/layer.0/attention");
}

TEST_CASE("tags with classes: list items carry their index, pure containers vanish") {
  ModuleTree tree({{"", "BertModel"},
                   {"encoder", "BertEncoder"},
                   {"encoder.layer", "ModuleList"},
                   {"encoder.layer.0", "BertLayer"},
                   {"encoder.layer.0.attention", "BertAttention"}});
  tree.add_path("encoder.layer.0.attention");
  CHECK(tree.tag_of("encoder.layer.0.attention") == "/BertModel/BertEncoder/BertLayer.0/BertAttention");
  SUBCASE("an unknown item class under a ModuleList keeps the list's name") {
    tree.add_path("encoder.layer.1");
    CHECK(tree.tag_of("encoder.layer.1") == "/BertModel/BertEncoder/layer.1");
  }
}

TEST_CASE("supplied modules keep their order, fields and tags; classes beat strategies") {
  json supplied = {{{"path", ""}, {"class", "Net"}, {"parameters", 10}},
                   {{"path", "b"}, {"class", "Block"}, {"tag", "/Net/CustomTag"}}};
  auto tree = ModuleTree::from_entries(supplied, {{"b", "Guess"}, {"c", "Head"}});
  tree.add_path("c");
  tree.add_path("b.x");
  CHECK(tree.class_of("b") == "Block");
  CHECK(tree.tag_of("b.x") == "/Net/CustomTag/x");
  CHECK(tree.tag_of("c") == "/Net/Head");
  const auto modules = tree.take_modules();
  CHECK(modules[0].path == "");
  CHECK(modules[0].parameters() == 10);
  CHECK(modules[1].path == "b");
  CHECK(modules[1].tag == "/Net/CustomTag");
  CHECK(entry(modules, "b").children == Paths{"b.x"});
  CHECK(hierarchy::stated_parent(entry(modules, "b.x")) == "b");
  CHECK(entry(modules, "c").class_name == "Head");
  // New modules follow the supplied ones, sorted; the root lists them.
  CHECK(modules[2].path == "b.x");
  CHECK(modules[3].path == "c");
  CHECK(entry(modules, "").children == Paths{"b", "c"});
}

TEST_CASE("plainly_consistent: never says yes to a tree module_tree_problems would refuse") {
  // Each case: supplied entries; whether the completed tree is consistent.
  const std::vector<std::pair<json, bool>> cases = {
      {json::parse(R"([{"path": "", "class": "N"}, {"path": "a", "class": "A"}])"), true},
      {json::parse(R"([{"path": "", "class": "N", "children": ["a"]},
                       {"path": "a", "class": "A", "parent": ""}, {"path": "a.b", "class": "B"}])"),
       true},
      {json::parse(R"([{"path": "a", "class": "A"}])"), true},  // the root is added
      {json::parse(R"([{"path": "", "class": "N"}, {"path": "a", "class": "A", "parent": null}])"), false},
      {json::parse(R"([{"path": "", "class": "N", "parent": "a"}, {"path": "a", "class": "A"}])"), false},
      {json::parse(R"([{"path": "", "class": "N", "children": ["a", "a.b"]},
                       {"path": "a", "class": "A"}, {"path": "a.b", "class": "B"}])"),
       false},
      {json::parse(R"([{"path": "", "class": "N"}, {"path": "a", "class": "A"},
                       {"path": "a.b", "class": "B"}, {"path": "a.b.c", "class": "C", "parent": "a"}])"),
       false},
      {json::parse(R"([{"path": "", "class": "N", "children": ["x"]}])"), false},
  };
  for (const auto& [entries, consistent] : cases) {
    CAPTURE(entries.dump());
    auto tree = ModuleTree::from_entries(entries);
    const bool no_problems = hierarchy::module_tree_problems(tree.to_modules(false)).empty();
    CHECK(no_problems == consistent);
    CHECK(tree.plainly_consistent() == consistent);
  }
}

TEST_CASE("to_modules: a supplied module whose parent path is no module") {
  auto tree = ModuleTree::from_entries(json::parse(
      R"([{"path": "", "class": "N"}, {"path": "z.b", "class": "X"}, {"path": "c.d", "class": "L"}])"));
  tree.add_path("a");
  // Order: 3 supplied, then "a", "c" (missing), "z" (missing): the first is at 4.
  CHECK_THROWS_WITH(tree.to_modules(),
                    "hierarchy: modules[4].path: required field is missing (module 'c.d' has no parent "
                    "module 'c': every module's parent path must be listed)");
  CHECK_FALSE(tree.plainly_consistent());
}

namespace {

// New modules (after the first `supplied`) must come out sorted by path,
// with their children in path order; the tree walk that produces them
// must agree with a sort of all paths.
void check_path_order(const std::vector<hierarchy::Module>& modules, size_t supplied) {
  Paths added;
  for (size_t i = supplied; i < modules.size(); ++i) added.push_back(modules[i].path);
  Paths sorted = added;
  std::sort(sorted.begin(), sorted.end());
  CHECK(added == sorted);
  for (size_t i = supplied; i < modules.size(); ++i) {
    Paths children = modules[i].children;
    std::sort(children.begin(), children.end());
    CHECK(modules[i].children == children);
  }
}

}  // namespace

TEST_CASE("new modules in path order: digits, and characters that sort before '.'") {
  const std::vector<Paths> cases = {
      // '.' sorts first here: the tree walk's order is the sorted order.
      {"encoder.layer.10.dense", "encoder.layer.2.act", "encoder.layer.1.dense", "encoder.layer.1",
       "encoder.layer.1.act", "encoder.layer_norm", "decoder.x", "encoder.layerA.b"},
      // '-' and ',' sort before '.': "a.b-x" comes before "a.b.c" although
      // "a.b.c" is in the subtree of "a.b", which is before "a.b-x".
      {"a.b.c", "a.b-x", "a.b", "a.bc.d", "a.b,y.z", "a.b0", "b"},
      // Bytes compare as unsigned char: "\xc3\xa9" (é) after "z".
      {"m.\xc3\xa9", "m.z", "m.Z", "m.\xc3\xa9.q", "m.zz"},
  };
  for (const auto& paths : cases) {
    CAPTURE(paths.front());
    ModuleTree tree;
    for (const auto& p : paths) tree.add_path(p);
    const auto modules = tree.take_modules();
    check_path_order(modules, 0);
    for (const auto& p : paths) CHECK(entry(modules, p).path == p);
  }
}

TEST_CASE("new modules below supplied ones: path order, parents, tags of added rows") {
  json supplied = {{{"path", ""}, {"class", "Net"}, {"children", {"z"}}},
                   {{"path", "z"}, {"class", "Block"}, {"tag", "/Net/CustomTag"}},
                   {{"path", "b"}, {"class", "B"}}};
  auto tree = ModuleTree::from_entries(supplied);
  const size_t row = tree.add_path("z.x.1");
  CHECK(tree.tag_of("z.x.1") == "/Net/CustomTag/x.1");
  CHECK(tree.add_path("z.x.1") == row);  // a path is added once
  tree.add_path("b.0");
  CHECK(tree.tag_of("b.0") == "/Net/B/0");
  tree.add_path("a");
  CHECK(tree.tag_of("a") == "/Net/a");
  CHECK(tree.add_path("z") == 1);  // the supplied row
  CHECK(tree.tag_of("z") == "/Net/CustomTag");
  const auto modules = tree.take_modules();
  REQUIRE(modules.size() == 7);
  CHECK(modules[1].path == "z");
  check_path_order(modules, 3);
  CHECK(modules[3].path == "a");
  CHECK(entry(modules, "").children == Paths{"z", "a", "b"});  // listed first, then appended
  CHECK(hierarchy::stated_parent(entry(modules, "z.x")) == "z");
  CHECK(entry(modules, "z").children == Paths{"z.x"});
  CHECK(entry(modules, "z.x.1").tag == "/Net/CustomTag/x.1");
}

TEST_CASE("thousands of modules: rows across storage blocks keep their paths and tags") {
  ModuleTree tree;
  Paths paths;
  for (int k = 0; k < 3000; ++k) paths.push_back("encoder.layer." + std::to_string(k) + ".dense");
  for (const auto& p : paths) {
    tree.add_path(p);
    CHECK(tree.tag_of(p) == "/encoder/layer." + p.substr(14, p.size() - 20) + "/dense");
  }
  // Looked up again after every block was filled: the index still finds them.
  CHECK(tree.tag_of("encoder.layer.7.dense") == "/encoder/layer.7/dense");
  CHECK(tree.contains("encoder.layer.2999"));
  const auto modules = tree.take_modules();
  CHECK(modules.size() == 2 * paths.size() + 3);
  check_path_order(modules, 0);
  CHECK(entry(modules, "encoder.layer").children.size() == paths.size());
}

// The tagger attaches a tree it built from the strategies' paths alone
// without hierarchy::validate_consistency (tagging/tagger.cpp): this is the
// promise that lets it. Random valid paths (characters sorting before and
// after '.', digits, bytes above 0x7f, shared prefixes), added in random
// order: the tree taken must pass the full checks.
TEST_CASE("a tree built from checked paths alone passes validate_consistency") {
  std::mt19937 rng(20261125);
  const std::vector<std::string> pieces = {"a",   "b",  "layer", "0",        "1",  "10",  "2", "x-y",
                                           "p,q", "_z", "A",     "\xc3\xa9", "m!", "k+1", "Z9"};
  auto segment = [&] {
    std::string s = pieces[rng() % pieces.size()];
    if (rng() % 4 == 0) s += pieces[rng() % pieces.size()];
    return s;
  };
  for (int round = 0; round < 200; ++round) {
    CAPTURE(round);
    ModuleTree tree;
    Paths paths;
    const int count = 1 + static_cast<int>(rng() % 60);
    for (int k = 0; k < count; ++k) {
      // Half extend an earlier path (deep, shared prefixes), half are new.
      std::string p = !paths.empty() && rng() % 2 ? paths[rng() % paths.size()] + "." : std::string();
      p += segment();
      for (int depth = static_cast<int>(rng() % 3); depth > 0; --depth) p += "." + segment();
      REQUIRE(mx::common::is_valid_module_path(p));
      paths.push_back(p);
    }
    for (const auto& p : paths) {
      tree.add_path(p);
      // Some tags read as paths are added: a memoised tag must not change
      // the tree take_modules builds.
      if (rng() % 2) (void)tree.tag_of(p);
    }
    hierarchy::Document doc;
    doc.modules = tree.take_modules();
    CHECK_NOTHROW(hierarchy::validate_consistency(doc, "tree"));
    for (const auto& p : paths) CHECK(entry(doc.modules, p).path == p);
  }
}

// Siblings are ordered on a key of their last segment's first 8 bytes,
// the segments themselves compared only where keys tie: the order must be
// the paths' order whatever the segments share or how long they are.
TEST_CASE("siblings in path order: long shared prefixes, 8-byte segments, high bytes, numbers") {
  Paths paths = {
      "m.abcdefghZ", "m.abcdefghA", "m.abcdefgh", "m.abcdefgh0", "m.abcdefg", "m.abcdefgi", "m.abcdefghij.x",
      "m.abcdefghi", "m.\xff",      "m.\xc3\xa9", "m.~",         "m.A",       "m.a"};
  for (int k = 120; k >= 0; --k) paths.push_back("n." + std::to_string(k));  // "10" before "9"
  ModuleTree tree;
  for (const auto& p : paths) tree.add_path(p);
  const auto modules = tree.to_modules();
  check_path_order(modules, 0);
  CHECK(entry(modules, "m").children.size() == 13);
  CHECK(entry(modules, "n").children.size() == 121);
  // to_modules copies: the tree is whole afterwards, and take_modules
  // (which moves) gives the same modules.
  const auto taken = tree.take_modules();
  REQUIRE(taken.size() == modules.size());
  for (size_t i = 0; i < taken.size(); ++i) {
    CAPTURE(i);
    CHECK(taken[i].path == modules[i].path);
    CHECK(hierarchy::stated_parent(taken[i]) == hierarchy::stated_parent(modules[i]));
    CHECK(taken[i].children == modules[i].children);
    CHECK(taken[i].tag == modules[i].tag);
  }
}

// A supplied module listed before its parent is moved to the output first:
// the parent's appended child path is read from the output then.
TEST_CASE("supplied children listed before their parent keep their paths in the parent's children") {
  json supplied = {{{"path", "a.b"}, {"class", "B"}},
                   {{"path", "a"}, {"class", "A"}},
                   {{"path", ""}, {"class", "Net"}, {"children", {"a"}}}};
  auto tree = ModuleTree::from_entries(supplied);
  tree.add_path("a.c");
  CHECK(tree.supplied_module(0).path == "a.b");
  CHECK(tree.supplied_module(1).class_name == "A");
  const auto copied = tree.to_modules();
  const auto modules = tree.take_modules();
  for (const auto* ms : {&copied, &modules}) {
    REQUIRE(ms->size() == 4);
    CHECK((*ms)[0].path == "a.b");
    CHECK(hierarchy::stated_parent((*ms)[0]) == "a");
    CHECK((*ms)[1].children == Paths{"a.b", "a.c"});
    CHECK((*ms)[2].children == Paths{"a"});
    CHECK((*ms)[3].path == "a.c");
    CHECK(hierarchy::stated_parent((*ms)[3]) == "a");
    CHECK((*ms)[3].tag == "/Net/A/c");
  }
}
