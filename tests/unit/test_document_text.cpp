// document_text/modules_text write what dump_text of the JSON DOM writes,
// byte for byte: sidecars, model metadata and mx_model_hierarchy_json did
// not change when they stopped building the DOM.
#include <doctest/doctest.h>

#include "fixture_model.hpp"
#include "hierarchy/document_text.hpp"
#include "hierarchy/parse.hpp"
#include "hierarchy/serialize.hpp"
#include "util/json_text.hpp"

using namespace modelexport;
using hierarchy::Json;

namespace {

void check_same(const hierarchy::Document& doc) {
  for (int indent : {-1, 0, 2, 4})
    CHECK(hierarchy::document_text(doc, indent) ==
          dump_text(hierarchy::document_to_json(doc), indent));
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
