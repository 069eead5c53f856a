// Rebuilding the module tree and tags from assigned paths.
#include <doctest/doctest.h>

#include "tagging/rebuilt_tree.hpp"

using namespace modelexport;
using nlohmann::json;

namespace {

json entry(const json& modules, const std::string& path) {
  for (const auto& m : modules)
    if (m["path"] == path) return m;
  return nullptr;
}

}  // namespace

TEST_CASE("every prefix of a used path becomes a module") {
  ModuleTree tree(json::array(), {});
  tree.add_path("encoder.layer.0.attention");
  json modules = tree.to_json();
  CHECK(modules.size() == 5);
  CHECK(entry(modules, "")["parent"].is_null());
  CHECK(entry(modules, "encoder.layer")["children"] == json{"encoder.layer.0"});
  CHECK(entry(modules, "encoder.layer.0")["parent"] == "encoder.layer");
  CHECK(entry(modules, "encoder")["class"] == "");
}

TEST_CASE("tags without classes mirror scoped names") {
  ModuleTree tree(json::array(), {});
  tree.add_path("encoder.layer.0.attention");
  CHECK(tree.tag_of("") == "/");
  CHECK(tree.tag_of("encoder.layer.0.attention") == "/encoder/layer.0/attention");
}

TEST_CASE("tags with classes: list items carry their index, pure containers vanish") {
  ModuleTree tree(json::array(), {{"", "BertModel"},
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
  ModuleTree tree(supplied, {{"b", "Guess"}, {"c", "Head"}});
  tree.add_path("c");
  tree.add_path("b.x");
  json modules = tree.to_json();
  CHECK(modules[0]["path"] == "");
  CHECK(modules[0]["parameters"] == 10);
  CHECK(modules[1]["path"] == "b");
  CHECK(tree.class_of("b") == "Block");
  CHECK(tree.tag_of("b.x") == "/Net/CustomTag/x");
  CHECK(tree.tag_of("c") == "/Net/Head");
  CHECK(entry(modules, "b")["children"] == json{"b.x"});
  json root_children = entry(modules, "")["children"];
  CHECK(std::find(root_children.begin(), root_children.end(), "c") != root_children.end());
}
