// The one hierarchy writer (document_text/modules_text) writes what dump_text
// of the oracle's JSON value (hierarchy_dom_writer) writes, byte for byte,
// and what it writes the reader reads back unchanged.
#include <doctest/doctest.h>

#include "fixture_model.hpp"
#include "hierarchy/document_text.hpp"
#include "hierarchy/parse.hpp"
#include "hierarchy_dom_writer.hpp"
#include "util/json_text.hpp"

using namespace mx;
using hierarchy::Json;

namespace {

// write_document_text's pieces, put back together.
std::string from_pieces(const hierarchy::Document& doc, int indent, size_t piece) {
  std::string out;
  hierarchy::write_document_text(
      doc, indent, [&](std::string_view text) { out += text; }, piece);
  return out;
}

void check_same(const hierarchy::Document& doc) {
  for (int indent : {-1, 0, 2, 4}) {
    CHECK(hierarchy::document_text(doc, indent) == dump_text(hierarchy::document_to_json(doc), indent));
    for (size_t piece : {size_t{1}, size_t{64}, size_t{1} << 20})
      CHECK(from_pieces(doc, indent, piece) == hierarchy::document_text(doc, indent));
  }
  CHECK(hierarchy::modules_text(doc.modules) == dump_text(hierarchy::modules_to_json(doc.modules)));
}

}  // namespace

TEST_CASE("document_text: the fixture document") {
  check_same(hierarchy::parse_document_text(testing::tiny_net_hierarchy(), "hierarchy"));
}

TEST_CASE("document_text: every optional field, unknown keys, odd strings, empty lists") {
  Json j = Json::parse(testing::tiny_net_hierarchy());
  j["producer"] = {{"name", "x"}, {"nested", {{"a", Json::array()}, {"b", {1, 2.5, nullptr}}}}};
  j["model"] = Json::object();
  j["future"] = {{"k", "v"}};
  Json& m = j["modules"][1];
  m["parameters"] = 12;
  m["own_parameters"] = 3;
  m["executed"] = false;
  m["execution_order"] = 7;
  m["forward"] = Json::array({{{"op", "aten::add"}}, {{"call", "fc"}, {"method", "extra"}}});
  m["vendor"] = {{"deep", {1, {{"x", "\"quoted\"\n"}}}}};
  j["modules"][0]["forward"] = Json::array();
  j["nodes"][0]["note"] = "caf\xc3\xa9 \x01 tab\t";
  j["nodes"][1]["index"] = 1;
  auto doc = hierarchy::parse_document(j, "hierarchy");
  doc.modules[0].class_name = "bad \xff utf-8";  // replaced, as dump_text does
  check_same(doc);
}

TEST_CASE("document_text: an empty document") {
  hierarchy::Document doc;
  check_same(doc);
}

TEST_CASE("every field round-trips through the reader and the writer") {
  // What the writer writes, the reader reads back to the same document:
  // through the fast path (text) and through the JSON value (a supplied
  // hierarchy), and the oracle agrees. A new field goes into this document.
  Json j = Json::parse(testing::tiny_net_hierarchy());
  j["producer"] = {{"name", "x"}, {"version", "1"}};
  j["model"] = {{"root_class", "TinyNet"}, {"opset", 17}};
  j["future"] = {{"k", "v"}};
  Json& m = j["modules"][1];
  m["qualified_class"] = "tests.Block";
  m["parameters"] = 12;
  m["own_parameters"] = 3;
  m["executed"] = true;
  m["execution_order"] = 7;
  m["forward"] = Json::array({{{"op", "aten::add"}}, {{"call", "fc"}, {"method", "extra"}}});
  m["vendor"] = {{"kept", true}};
  j["nodes"][0]["source_node"] = "linear";
  j["nodes"][0]["call"] = 1;
  const std::string text = hierarchy::document_text(hierarchy::parse_document(j, "h"), 2);
  const auto from_text = hierarchy::parse_document_text(text, "h.json");
  CHECK(hierarchy::document_text(from_text, 2) == text);
  CHECK(hierarchy::document_text(hierarchy::parse_document(Json::parse(text), "h"), 2) == text);
  CHECK(dump_text(hierarchy::document_to_json(from_text), 2) == text);
  REQUIRE(from_text.modules.size() > 1);
  CHECK(from_text.modules[1].execution_order() == 7);
  CHECK(from_text.modules[1].qualified_class() == "tests.Block");
  CHECK(from_text.modules[1].forward()->size() == 2);
}
