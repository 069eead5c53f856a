// The metadata strategy on small graph views: source priority, classes,
// malformed values (warning + no assignment), our own records.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "metadata_strategy.hpp"

using nlohmann::json;

namespace {

// The strategy on a graph sent as JSON (the 1.0 protocol's "graph").
mx::metadata::MetadataResult assign_from_metadata(const json& graph, const json& tree) {
  return mx::metadata::assign_from_metadata(mx_strategy::JsonGraph(graph), mx_strategy::JsonModules(tree));
}

json node(size_t index, json metadata, std::string doc = "") {
  return {{"index", index},
          {"name", "n" + std::to_string(index)},
          {"op_type", "Relu"},
          {"inputs", json::array()},
          {"outputs", json::array()},
          {"metadata", std::move(metadata)},
          {"doc_string", std::move(doc)}};
}

json graph_of(std::vector<json> nodes) {
  return {{"nodes", nodes}};
}

}  // namespace

TEST_CASE("name_scopes give the innermost module, classes become modules") {
  auto g = graph_of({node(0, {{"pkg.torch.onnx.name_scopes", "['', 'stem', 'stem.0', 'conv2d']"},
                              {"pkg.torch.onnx.class_hierarchy",
                               "['__main__.Net', 'torch.nn.modules.container.Sequential', "
                               "'torch.nn.modules.conv.Conv2d', 'aten.conv2d.default']"}})});
  auto r = assign_from_metadata(g, json::array());
  REQUIRE(r.assignments.size() == 1);
  CHECK(r.assignments[0].module == "stem.0");
  REQUIRE(r.modules.size() == 3);
  CHECK(r.modules[0].path == "");
  CHECK(r.modules[0].class_name == "Net");
  CHECK(r.modules[2].class_name == "Conv2d");
  CHECK(r.modules[2].qualified_class == "torch.nn.modules.conv.Conv2d");
  CHECK(r.warnings.empty());
}

TEST_CASE("namespace is used when name_scopes is absent or malformed") {
  const char* ns = ": __main__.Net/body: torch.nn.modules.container.Sequential/add: aten.add.Tensor";
  SUBCASE("absent") {
    auto r = assign_from_metadata(graph_of({node(0, {{"namespace", ns}})}), json::array());
    REQUIRE(r.assignments.size() == 1);
    CHECK(r.assignments[0].module == "body");
    CHECK(r.warnings.empty());
  }
  SUBCASE("malformed name_scopes: warning naming node and key, then namespace") {
    auto r = assign_from_metadata(
        graph_of({node(0, {{"pkg.torch.onnx.name_scopes", "['', 'body'"}, {"namespace", ns}})}),
        json::array());
    REQUIRE(r.assignments.size() == 1);
    CHECK(r.assignments[0].module == "body");
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].find("'n0'") != std::string::npos);
    CHECK(r.warnings[0].find("pkg.torch.onnx.name_scopes") != std::string::npos);
  }
}

TEST_CASE("malformed values never assign and never throw") {
  std::vector<json> nodes;
  const char* bad_scopes[] = {
      "", "[", "['a', 'b']", "['', 'x y', 'n']", "[1, 2]", "['', 'a..b', 'n']", "['', 'a/b', 'n']", "['']"};
  size_t i = 0;
  for (const char* v : bad_scopes) nodes.push_back(node(i++, {{"pkg.torch.onnx.name_scopes", v}}));
  nodes.push_back(node(i++, {{"namespace", "not a namespace"}}));
  nodes.push_back(node(i++, {{"namespace", 42}}));  // not a string
  nodes.push_back(node(i++, "metadata is not an object"));
  nodes.push_back(node(i++, {{"modelexport.module", "a b"}}));  // invalid path
  nodes.push_back(node(i++, {{"modelexport.module", ".a"}}));   // invalid path
  nodes.push_back(node(i++, json::object(), "modelexport:{not json"));
  auto r = assign_from_metadata(graph_of(nodes), json::array());
  CHECK(r.assignments.empty());
  CHECK(r.warnings.size() == nodes.size() - 1);  // the non-object metadata is just ignored
}

TEST_CASE("class_hierarchy that does not line up costs the classes, not the path") {
  auto r = assign_from_metadata(graph_of({node(0, {{"pkg.torch.onnx.name_scopes", "['', 'a', 'n']"},
                                                   {"pkg.torch.onnx.class_hierarchy", "['M', 'n']"}})}),
                                json::array());
  REQUIRE(r.assignments.size() == 1);
  CHECK(r.assignments[0].module == "a");
  CHECK(r.modules.empty());
  CHECK(r.warnings.size() == 1);
}

TEST_CASE("our own records win and guesses are not re-read") {
  auto g = graph_of({
      node(0, {{"modelexport.module", "encoder.layer.0"},
               {"modelexport.evidence", "direct"},
               {"namespace", ": M/other: X/n: t"}}),
      node(1, {{"modelexport.module", "encoder"}, {"modelexport.evidence", "propagated"}}),
      node(2, json::object(), R"(modelexport:{"module":"pooler","evidence":"scope"})"),
      node(3, json::object(), "a plain doc string"),
  });
  auto r = assign_from_metadata(g, json::array());
  REQUIRE(r.assignments.size() == 2);
  CHECK(r.assignments[0].node == 0);
  CHECK(r.assignments[0].module == "encoder.layer.0");
  CHECK(r.assignments[1].node == 2);
  CHECK(r.assignments[1].module == "pooler");
  CHECK(r.warnings.empty());
}

TEST_CASE("last-component scopes are repaired from a known module tree") {
  json tree = json::array(
      {{{"path", ""}}, {{"path", "layer1"}}, {{"path", "layer1.0"}}, {{"path", "layer1.0.conv1"}}});
  auto g = graph_of({node(0, {{"pkg.torch.onnx.name_scopes", "['', 'layer1', '0', 'conv1', 'conv2d']"}})});
  auto r = assign_from_metadata(g, tree);
  REQUIRE(r.assignments.size() == 1);
  CHECK(r.assignments[0].module == "layer1.0.conv1");
  // Without the tree the path is taken as written: real files hold full paths.
  auto bare = assign_from_metadata(g, json::array());
  CHECK(bare.assignments[0].module == "conv1");
}

TEST_CASE("a graph view without nodes is a problem of the request, not a crash") {
  // The plugin refuses such a request (MX_ERR_SCHEMA, plugin_entry_test);
  // the strategy itself sees an empty graph.
  mx_strategy::JsonGraph none((json()));
  CHECK_FALSE(none.has_nodes());
  CHECK(none.problems().size() == 1);
  CHECK(assign_from_metadata(json(), json()).assignments.empty());
  CHECK(assign_from_metadata(json{{"nodes", 3}}, json()).assignments.empty());
}
