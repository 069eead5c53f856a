// Schema validation of hierarchy documents: every error names its field.
#include <doctest/doctest.h>

#include "fixture_model.hpp"
#include "hierarchy/parse.hpp"
#include "hierarchy_dom_writer.hpp"
#include "util/error.hpp"

using namespace mx;
using hierarchy::Json;

namespace {
// Parses a mutated TinyNet document and returns the error (code, message).
std::pair<mx_code, std::string> error_of(const std::function<void(Json&)>& mutate) {
  Json doc = Json::parse(testing::tiny_net_hierarchy());
  mutate(doc);
  try {
    hierarchy::parse_document(doc, "hierarchy");
  } catch (const Error& e) {
    return {e.code(), e.what()};
  }
  return {MX_OK, ""};
}
}  // namespace

TEST_CASE("hierarchy: a valid document parses and keeps its fields") {
  auto doc = hierarchy::parse_document_text(testing::tiny_net_hierarchy(), "hierarchy");
  CHECK(doc.modules.size() == 3);
  CHECK(doc.nodes.size() == 3);
  CHECK(doc.modules[1].qualified_class() == "torch.nn.modules.linear.Linear");
  CHECK(doc.modules[0].parent == std::nullopt);
  CHECK(doc.nodes[2].evidence == hierarchy::Evidence::propagated);
  CHECK(doc.producer["source"] == "tests");
}

TEST_CASE("hierarchy: a module without optional fields gets no details") {
  Json in = Json::parse(testing::tiny_net_hierarchy());
  Json& m = in["modules"][1];
  for (const char* key : {"qualified_class", "parameters", "own_parameters", "executed", "execution_order"})
    m.erase(key);
  m["parameters"] = nullptr;  // null reads as absent
  m["forward"] = nullptr;
  const auto doc = hierarchy::parse_document(in, "hierarchy");
  CHECK_FALSE(doc.modules[1].has_details());
  CHECK(doc.modules[0].has_details());
  const auto text = hierarchy::parse_document_text(in.dump(), "hierarchy");
  CHECK_FALSE(text.modules[1].has_details());
  CHECK(text.modules[0].has_details());
}

TEST_CASE("hierarchy: schema errors name the field") {
  SUBCASE("bad evidence") {
    auto [code, msg] = error_of([](Json& d) { d["nodes"][2]["evidence"] = "foo"; });
    CHECK(code == MX_ERR_SCHEMA);
    CHECK(msg ==
          "hierarchy: nodes[2].evidence: 'foo' is not one of "
          "direct|scope|metadata|parameter|propagated|root");
  }
  SUBCASE("missing required field") {
    auto [code, msg] = error_of([](Json& d) { d["modules"][1].erase("class"); });
    CHECK(code == MX_ERR_SCHEMA);
    CHECK(msg == "hierarchy: modules[1].class: required field is missing");
  }
  SUBCASE("wrong type") {
    auto [code, msg] = error_of([](Json& d) { d["nodes"][0]["module"] = 3; });
    CHECK(msg.find("nodes[0].module: must be string") != std::string::npos);
  }
  SUBCASE("other schema major") {
    auto [code, msg] = error_of([](Json& d) { d["schema"] = "modelexport.hierarchy/2"; });
    CHECK(code == MX_ERR_SCHEMA);
    CHECK(msg.find("'modelexport.hierarchy/2' is not supported") != std::string::npos);
  }
  SUBCASE("a later minor is accepted") {
    auto [code, msg] = error_of([](Json& d) { d["schema"] = "modelexport.hierarchy/1.4"; });
    CHECK(code == MX_OK);
  }
  SUBCASE("record module not in the tree") {
    auto [code, msg] = error_of([](Json& d) { d["nodes"][1]["module"] = "fc2"; });
    CHECK(msg == "hierarchy: nodes[1].module: 'fc2' is not in modules");
  }
  SUBCASE("unknown parent") {
    auto [code, msg] = error_of([](Json& d) { d["modules"][2]["parent"] = "nope"; });
    CHECK(msg == "hierarchy: modules[2].parent: 'nope' is not a module path");
  }
  SUBCASE("duplicate module path") {
    auto [code, msg] = error_of([](Json& d) { d["modules"][2]["path"] = "fc"; });
    CHECK(msg == "hierarchy: modules[2].path: 'fc' appears twice");
  }
  SUBCASE("duplicate record") {
    auto [code, msg] = error_of([](Json& d) { d["nodes"][1]["name"] = "/fc/MatMul"; });
    CHECK(msg ==
          "hierarchy: nodes[1].name: '/fc/MatMul' has two records (records of nodes sharing a name "
          "need \"index\", the node's position in the graph)");
  }
  SUBCASE("nodes missing") {
    auto [code, msg] = error_of([](Json& d) { d.erase("nodes"); });
    CHECK(msg == "hierarchy: nodes: required field is missing");
  }
}

TEST_CASE("hierarchy: malformed JSON is a parse error") {
  try {
    hierarchy::parse_document_text("{\"schema\": ", "h.json");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == MX_ERR_PARSE);
    CHECK(std::string(e.what()).rfind("h.json: not valid JSON", 0) == 0);
  }
}

TEST_CASE("hierarchy: serialization keeps unknown keys and recomputes statistics") {
  Json in = Json::parse(testing::tiny_net_hierarchy());
  in["future_field"] = {{"x", 1}};
  in["modules"][1]["flops"] = 42;
  in["statistics"] = {{"nodes", 99}};
  auto out = hierarchy::document_to_json(hierarchy::parse_document(in, "hierarchy"));
  CHECK(out["future_field"]["x"] == 1);
  CHECK(out["modules"][1]["flops"] == 42);
  CHECK(out["statistics"]["nodes"] == 3);
  CHECK(out["statistics"]["evidence"]["direct"] == 2);
  CHECK(out["statistics"]["evidence"]["propagated"] == 1);
  CHECK(out["statistics"]["evidence"]["root"] == 0);
}

TEST_CASE("hierarchy: a module's forward outline is checked and kept") {
  Json outline =
      Json::array({{{"call", "fc"}}, {{"op", "aten::add"}}, {{"call", "fc"}, {"method", "reset"}}});
  Json in = Json::parse(testing::tiny_net_hierarchy());
  in["modules"][0]["forward"] = outline;
  auto doc = hierarchy::parse_document(in, "hierarchy");
  REQUIRE(doc.modules[0].forward());
  CHECK(doc.modules[0].forward()->size() == 3);
  CHECK((*doc.modules[0].forward())[0].kind == hierarchy::ForwardStep::Kind::call);
  CHECK((*doc.modules[0].forward())[1].name == "aten::add");
  CHECK((*doc.modules[0].forward())[2].method == "reset");
  CHECK_FALSE(doc.modules[1].forward());
  CHECK(hierarchy::document_to_json(doc)["modules"][0]["forward"] == outline);

  SUBCASE("not an array") {
    auto [code, msg] = error_of([](Json& d) { d["modules"][0]["forward"] = "fc"; });
    CHECK(code == MX_ERR_SCHEMA);
    CHECK(msg == "hierarchy: modules[0].forward: must be array, got string");
  }
  SUBCASE("a step with both op and call") {
    auto [code, msg] = error_of([](Json& d) {
      d["modules"][0]["forward"] = Json::array({{{"op", "aten::add"}, {"call", "fc"}}});
    });
    CHECK(code == MX_ERR_SCHEMA);
    CHECK(msg == "hierarchy: modules[0].forward[0]: must have exactly one of \"op\" and \"call\"");
  }
  SUBCASE("a step that is not an object") {
    auto [code, msg] = error_of([](Json& d) { d["modules"][0]["forward"] = Json::array({1}); });
    CHECK(msg == "hierarchy: modules[0].forward[0]: must be an object");
  }
  SUBCASE("a call to a non-string") {
    auto [code, msg] = error_of([](Json& d) { d["modules"][0]["forward"] = Json::array({{{"call", 3}}}); });
    CHECK(msg == "hierarchy: modules[0].forward[0].call: must be string, got number");
  }
  SUBCASE("a method on an op") {
    auto [code, msg] = error_of([](Json& d) {
      d["modules"][0]["forward"] = Json::array({{{"op", "aten::add"}, {"method", "x"}}});
    });
    CHECK(msg == "hierarchy: modules[0].forward[0].method: only a \"call\" step has a method");
  }
}
