// The one reader of hierarchy documents (sdk/src/hierarchy/document_reader.cpp)
// against its oracle, the JSON-tree reader field by field
// (hierarchy_dom_reader.cpp): for text and for JSON trees, the same
// Document when the input is good, the same message (and code) when it is
// not, whatever the order of the keys.
#include <doctest/doctest.h>

#include "fixture_model.hpp"
#include "hierarchy/parse.hpp"
#include "hierarchy_dom_reader.hpp"
#include "hierarchy_dom_writer.hpp"
#include "util/error.hpp"
#include "util/json_text.hpp"

using namespace mx;
using hierarchy::Json;

namespace {

std::string described(const hierarchy::Document& doc) {
  return dump_text(hierarchy::document_to_json(doc));
}

std::string failure(const Error& e) {
  return std::to_string(static_cast<int>(e.code())) + " " + e.what();
}

// What the reader makes of `text`: the document, or its code and message.
std::string outcome(const std::string& text) {
  try {
    return described(hierarchy::parse_document_text(text, "h.json"));
  } catch (const Error& e) {
    return failure(e);
  }
}

// The same through the oracle.
std::string oracle_outcome(const std::string& text) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::exception& e) {
    return std::to_string(MX_ERR_PARSE) + " h.json: not valid JSON: " + e.what();
  }
  try {
    hierarchy::Document doc = hierarchy::oracle::dom_parse_document(j, "h.json");
    hierarchy::validate_consistency(doc, "h.json");
    return described(doc);
  } catch (const Error& e) {
    return failure(e);
  }
}

// The reader given the JSON tree instead of its text.
std::string tree_outcome(const std::string& text) {
  try {
    return described(hierarchy::parse_document(Json::parse(text), "h.json"));
  } catch (const Error& e) {
    return failure(e);
  }
}

Json fixture() {
  return Json::parse(testing::tiny_net_hierarchy());
}

std::string with(void (*edit)(Json&)) {
  Json j = fixture();
  edit(j);
  return dump_text(j);
}

void check_like_oracle(const std::string& text) {
  CAPTURE(text);
  const std::string expected = oracle_outcome(text);
  CHECK(outcome(text) == expected);
  if (expected.rfind(std::to_string(MX_ERR_PARSE) + " ", 0) != 0) CHECK(tree_outcome(text) == expected);
}

}  // namespace

TEST_CASE("reader: the fixture document, as the oracle reads it") {
  check_like_oracle(testing::tiny_net_hierarchy());
  CHECK(outcome(testing::tiny_net_hierarchy()).find("\"tag\"") != std::string::npos);
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
  r["source_node"] = "linear_3";
  r["tag"] = "";
  check_like_oracle(dump_text(j, 2));
  check_like_oracle(dump_text(j));
}

TEST_CASE("reader: the oracle's message for every problem") {
  const std::vector<std::string> texts = {
      "[]",
      "5",
      "\"text\"",
      "{\"schema\": ",
      "{\"schema\": 5, \"modules\": [",  // malformed JSON wins over the schema
      "{\"schema\": \"modelexport.hierarchy/1\", \"modules\": []}",
      "{\"modules\": [], \"nodes\": []}",
      "{\"modules\": {}, \"nodes\": [], \"schema\": \"modelexport.hierarchy/2\"}",
      "{\"nodes\": [{}], \"modules\": [{\"class\": 1}], \"schema\": \"modelexport.hierarchy/1\"}",
      "{\"nodes\": [3], \"modules\": [], \"schema\": \"modelexport.hierarchy/1\"}",
      "{\"nodes\": [], \"modules\": [[1, {\"a\": []}], {}], \"schema\": \"modelexport.hierarchy/1\"}",
      "{\"nodes\": null, \"modules\": [], \"schema\": \"modelexport.hierarchy/1\"}",
      "{\"nodes\": [], \"modules\": [], \"schema\": [\"modelexport.hierarchy/1\"]}",
      with([](Json& j) { j["schema"] = "modelexport.hierarchy/2"; }),
      with([](Json& j) { j["schema"] = "modelexport.hierarchy/1.7"; }),
      with([](Json& j) { j["modules"] = Json::object(); }),
      with([](Json& j) { j["modules"][1]["class"] = 3; }),
      with([](Json& j) {
        j["modules"][1]["class"] = Json::object({{"a", 1}});
      }),
      with([](Json& j) { j["modules"][1].erase("class"); }),
      with([](Json& j) { j["modules"][1].erase("class"), j["modules"][1].erase("path"); }),
      with([](Json& j) { j["modules"][1]["path"] = 1, j["modules"][1]["tag"] = 2; }),
      with([](Json& j) { j["modules"][1]["children"] = nullptr; }),
      with([](Json& j) {
        j["modules"][1]["children"] = {"fc", 1, Json::array()};
      }),
      with([](Json& j) {
        j["modules"][1]["children"] = {Json::object(), "x"};
      }),
      with([](Json& j) { j["modules"][1]["parent"] = 5; }),
      with([](Json& j) { j["modules"][1]["executed"] = nullptr; }),
      with([](Json& j) { j["modules"][1]["executed"] = "yes"; }),
      with([](Json& j) { j["modules"][1]["parameters"] = 1.0; }),
      with([](Json& j) { j["modules"][1]["parameters"] = -4; }),
      with([](Json& j) { j["modules"][1]["parameters"] = "4"; }),
      with([](Json& j) { j["modules"][1]["own_parameters"] = Json::array(); }),
      with([](Json& j) { j["modules"][1]["execution_order"] = -4; }),
      with([](Json& j) { j["modules"][1]["parameters"] = 18446744073709551615ull; }),
      with([](Json& j) {
        j["modules"][1]["forward"] = {{{"op", "a"}, {"call", "b"}}};
      }),
      with([](Json& j) {
        j["modules"][1]["forward"] = {{{"op", "a"}, {"method", "b"}}};
      }),
      with([](Json& j) {
        j["modules"][1]["forward"] = {{{"call", 3}}};
      }),
      with([](Json& j) { j["modules"][1]["forward"] = {5}; }),
      with([](Json& j) { j["modules"][1]["forward"] = Json::object(); }),
      with([](Json& j) { j["modules"][1]["forward"] = "x"; }),
      with([](Json& j) { j["modules"][1]["tag"] = nullptr; }),
      with([](Json& j) { j["modules"][1]["forward"] = 1, j["modules"][2]["class"] = 1; }),
      with([](Json& j) { j["modules"][0] = 5; }),
      with([](Json& j) { j["modules"][1]["path"] = "a b"; }),
      with([](Json& j) { j["nodes"][0]["evidence"] = "guess"; }),
      with([](Json& j) { j["nodes"][0]["evidence"] = 1; }),
      with([](Json& j) { j["nodes"][0]["index"] = -1; }),
      with([](Json& j) { j["nodes"][0]["index"] = 2147483648ll; }),
      with([](Json& j) { j["nodes"][0]["index"] = 0.5; }),
      with([](Json& j) { j["nodes"][0].erase("name"); }),
      with([](Json& j) { j["nodes"][0].erase("evidence"), j["nodes"][0]["module"] = 1; }),
      with([](Json& j) { j["nodes"][1] = 5; }),
      with([](Json& j) { j["nodes"][1] = Json::array({Json::object()}); }),
      with([](Json& j) { j["nodes"][0]["module"] = "nowhere"; }),
      with([](Json& j) { j["nodes"][0]["evidence"] = "guess", j["modules"][1]["class"] = 3; }),
  };
  for (const auto& text : texts) check_like_oracle(text);
}

TEST_CASE("reader: a repeated key goes the tree's way (the last one wins)") {
  const std::string text = testing::tiny_net_hierarchy();
  auto inserted = [&](const std::string& before, const std::string& what) {
    std::string t = text;
    const auto at = t.find(before);
    REQUIRE(at != std::string::npos);
    return t.insert(at, what);
  };
  check_like_oracle(inserted("\"class\": ", "\"class\": \"First\", "));
  check_like_oracle(inserted("\"class\": ", "\"class\": 7, "));
  check_like_oracle(inserted("\"children\": ", "\"children\": [1, 2], "));
  check_like_oracle(inserted("\"modules\": ", "\"modules\": [{\"path\": 5}], "));
  check_like_oracle(inserted("\"nodes\": ", "\"nodes\": 3, "));
  check_like_oracle(inserted("\"schema\": ", "\"schema\": \"other/1\", "));
  check_like_oracle(inserted("\"evidence\": ", "\"evidence\": \"guess\", \"x\": 1, \"x\": [2], "));
}

TEST_CASE("reader: a lone record and a modules array, as the oracle reads them") {
  auto record = [](const Json& j) {
    try {
      return dump_text(
          hierarchy::record_to_json(hierarchy::Document{}, hierarchy::parse_record(j, "m"), true));
    } catch (const Error& e) {
      return failure(e);
    }
  };
  auto oracle_record = [](const Json& j) {
    try {
      return dump_text(hierarchy::record_to_json(hierarchy::Document{},
                                                 hierarchy::oracle::dom_parse_record(j, "m"), true));
    } catch (const Error& e) {
      return failure(e);
    }
  };
  for (const Json& j : {Json::parse(R"({"module": "fc", "tag": "/T", "evidence": "scope"})"),
                        Json::parse(R"({"module": "fc", "evidence": "scope", "call": 2})"),
                        Json::parse(R"({"module": "fc"})"), Json::parse(R"({"module": 1, "evidence": "x"})"),
                        Json::parse(R"([1])"), Json::parse(R"("x")")}) {
    CAPTURE(j);
    CHECK(record(j) == oracle_record(j));
  }
  auto modules = [](const Json& j, bool oracle) {
    try {
      auto m = oracle ? hierarchy::oracle::dom_parse_modules(j, "m") : hierarchy::parse_modules(j, "m");
      return dump_text(hierarchy::modules_to_json(m));
    } catch (const Error& e) {
      return failure(e);
    }
  };
  for (const Json& j : {fixture()["modules"], Json::object(), Json::parse(R"([{"path": ""}])"),
                        Json::parse(R"([3, {"path": 1}])")}) {
    CAPTURE(j);
    CHECK(modules(j, false) == modules(j, true));
  }
}
