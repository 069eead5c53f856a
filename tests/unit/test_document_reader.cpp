// read_document_fast (the SAX path of parse_document_text) gives exactly
// the Document the JSON tree gives, and gives up on anything it would read
// differently, so that parse_document_text still reports it with the tree's
// message.
#include <doctest/doctest.h>

#include "fixture_model.hpp"
#include "hierarchy/document_reader.hpp"
#include "hierarchy/parse.hpp"
#include "hierarchy_dom_writer.hpp"
#include "util/error.hpp"
#include "util/json_text.hpp"

using namespace modelexport;
using hierarchy::Json;

namespace {

// The document through the JSON tree, as text (every field, in order).
std::string via_tree(const std::string& text) {
  return dump_text(hierarchy::document_to_json(hierarchy::parse_document(Json::parse(text), "h")));
}

std::string via_reader(const std::string& text) {
  auto doc = hierarchy::read_document_fast(text);
  REQUIRE(doc);
  hierarchy::validate_consistency(*doc, "h");
  return dump_text(hierarchy::document_to_json(*doc));
}

// What parse_document_text makes of `text`: its message, or the document.
std::string outcome(const std::string& text) {
  try {
    return dump_text(hierarchy::document_to_json(hierarchy::parse_document_text(text, "h.json")));
  } catch (const Error& e) {
    return e.what();
  }
}

// The same through the JSON tree.
std::string tree_outcome(const std::string& text) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::exception& e) {
    return std::string("h.json: not valid JSON: ") + e.what();
  }
  try {
    return dump_text(hierarchy::document_to_json(hierarchy::parse_document(j, "h.json")));
  } catch (const Error& e) {
    return e.what();
  }
}

Json fixture() { return Json::parse(testing::tiny_net_hierarchy()); }

}  // namespace

TEST_CASE("reader: the fixture document, as the tree reads it") {
  const std::string text = testing::tiny_net_hierarchy();
  CHECK(via_reader(text) == via_tree(text));
}

TEST_CASE("reader: every optional field, nulls, unknown keys in order, odd strings") {
  Json j = fixture();
  j["producer"] = {{"name", "x"}, {"nested", {{"b", {1, 2.5, nullptr, true}}, {"a", Json::array()}}}};
  j["model"] = "a string";
  j["zeta"] = {{"k", "v"}};
  j["alpha"] = Json::array({1, {{"x", -3}}});
  j["statistics"] = {{"nodes", 99}};
  Json& m = j["modules"][1];
  m["parameters"] = 12;
  m["own_parameters"] = nullptr;
  m["executed"] = false;
  m["execution_order"] = 18446744073709551ull;
  m["forward"] = Json::array({{{"op", "aten::add"}}, {{"call", "fc"}, {"method", "extra"}}});
  m["qualified_class"] = "torch.nn.Linear \xe2\x9c\x93 \"q\" \\";
  m["zz_unknown"] = {{"nested", Json::array({Json::object()})}};
  m["aa_unknown"] = 1.5;
  j["modules"][0]["forward"] = nullptr;
  Json& r = j["nodes"][0];
  r["index"] = nullptr;
  r["later"] = Json::array();
  r["tag"] = "";
  const std::string text = dump_text(j, 2);
  CHECK(via_reader(text) == via_tree(text));
}

TEST_CASE("reader: gives up where the tree would refuse or read otherwise") {
  // (A parameter count beyond int64 is read by the tree, wrapped; the
  // reader leaves that to it.)
  auto with = [](auto edit) {
    Json j = fixture();
    edit(j);
    return dump_text(j);
  };
  const std::vector<std::string> texts = {
      "[]",
      "{\"schema\": ",
      "{\"schema\": \"modelexport.hierarchy/1\", \"modules\": []}",
      with([](Json& j) { j["schema"] = "modelexport.hierarchy/2"; }),
      with([](Json& j) { j["modules"] = Json::object(); }),
      with([](Json& j) { j["modules"][1]["class"] = 3; }),
      with([](Json& j) { j["modules"][1].erase("class"); }),
      with([](Json& j) { j["modules"][1]["children"] = nullptr; }),
      with([](Json& j) { j["modules"][1]["children"] = {1}; }),
      with([](Json& j) { j["modules"][1]["executed"] = nullptr; }),
      with([](Json& j) { j["modules"][1]["parameters"] = 1.0; }),
      with([](Json& j) { j["modules"][1]["parameters"] = 18446744073709551615ull; }),
      with([](Json& j) { j["modules"][1]["forward"] = {{{"op", "a"}, {"call", "b"}}}; }),
      with([](Json& j) { j["modules"][1]["forward"] = Json::object(); }),
      with([](Json& j) { j["modules"][1]["tag"] = nullptr; }),
      with([](Json& j) { j["nodes"][0]["evidence"] = "guess"; }),
      with([](Json& j) { j["nodes"][0]["index"] = -1; }),
      with([](Json& j) { j["nodes"][0].erase("name"); }),
      with([](Json& j) { j["nodes"][1] = 5; }),
  };
  for (const auto& text : texts) {
    CAPTURE(text);
    CHECK_FALSE(hierarchy::read_document_fast(text));
    CHECK(outcome(text) == tree_outcome(text));
  }
}

TEST_CASE("reader: a repeated key goes the tree's way (the last one wins)") {
  std::string text = testing::tiny_net_hierarchy();
  const std::string key = "\"class\": ";
  const auto at = text.find(key);
  REQUIRE(at != std::string::npos);
  text.insert(at, "\"class\": \"First\", ");
  CHECK_FALSE(hierarchy::read_document_fast(text));
  CHECK(outcome(text) == tree_outcome(text));
}

TEST_CASE("reader: cross-checks are still made (a record of an unknown module)") {
  Json j = fixture();
  j["nodes"][0]["module"] = "nowhere";
  const std::string text = dump_text(j);
  CHECK(hierarchy::read_document_fast(text));
  CHECK(outcome(text).find("nodes[0].module: 'nowhere' is not in modules") != std::string::npos);
}
