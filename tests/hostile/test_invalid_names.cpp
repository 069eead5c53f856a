// Invalid UTF-8 and NUL bytes in names and metadata: issues in a report,
// valid UTF-8 in rendered text, messages that are not cut short.
#include <doctest/doctest.h>

#include "mx/onnx_proto.hpp"

#include "c_api_steps.hpp"
#include "fixture_model.hpp"

using namespace mx::hostile;
using mx::testing::tiny_net;

TEST_CASE("validate: invalid UTF-8 and hostile external data are issues, not errors") {
  Scratch s("names_validate");
  auto m = tiny_net();
  m.mutable_graph()->mutable_node(0)->set_name("bad\xAD\xFFname");
  auto* e = m.add_metadata_props();
  e->set_key("note");
  e->set_value("\xC3\x28");
  write(s.models() / "u.onnx", bytes_of(m));
  mx_code code = MX_OK;
  std::string report = validate(s.models() / "u.onnx", &code);
  CHECK(code == MX_OK);
  CHECK(report.find("\"kind\":\"utf8\"") != std::string::npos);
  CHECK(report.find("internal") == std::string::npos);

  auto x = tiny_net();
  auto* w = x.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  w->clear_float_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = w->add_external_data();
  loc->set_key("location");
  loc->set_value("/etc/passwd");
  write(s.models() / "x.onnx", bytes_of(x));
  report = validate(s.models() / "x.onnx", &code);
  CHECK(code == MX_OK);
  CHECK(report.find("\"kind\":\"external_data\"") != std::string::npos);
  CHECK(report.find("\"ok\":false") != std::string::npos);
}

TEST_CASE("graphml of a model with invalid UTF-8 names is valid UTF-8") {
  auto m = tiny_net();
  m.mutable_graph()->mutable_node(0)->set_name(std::string("n\xAD\0x", 4));
  const std::string b = bytes_of(m);
  mx_model* model = nullptr;
  REQUIRE(mx_model_load_bytes(b.data(), b.size(), &model) == nullptr);
  char* text = nullptr;
  size_t n = 0;
  REQUIRE(mx_model_render(model, "graphml", nullptr, &text, &n) == nullptr);
  const std::string xml(text, n);
  CHECK(xml.find('\xAD') == std::string::npos);
  CHECK(xml.find("n\xEF\xBF\xBDx") != std::string::npos);  // U+FFFD, NUL dropped
  mx_free(text);
  mx_model_release(model);
}

TEST_CASE("a NUL in a node name does not cut the message") {
  auto m = tiny_net();
  m.mutable_graph()->mutable_node(0)->set_name(std::string("a\0b", 3));
  m.mutable_graph()->mutable_node(1)->set_name(std::string("a\0b", 3));
  const std::string b = bytes_of(m);
  mx_model* model = nullptr;
  REQUIRE(mx_model_load_bytes(b.data(), b.size(), &model) == nullptr);
  char* text = nullptr;
  size_t n = 0;
  mx_status* st = mx_model_node_record(model, "a", &text, &n);  // C string: "a"
  CHECK(mx_status_code(st) == MX_ERR_NOT_FOUND);
  mx_status_release(st);
  const char* doc =
      "{\"schema\":\"modelexport.hierarchy/1\",\"modules\":[],"
      "\"nodes\":[{\"name\":\"a\\u0000b\",\"module\":\"\",\"evidence\":\"root\"}]}";
  st = mx_model_set_hierarchy_json(model, doc, 0);
  CHECK(mx_status_code(st) == MX_ERR_SCHEMA);
  CHECK(std::string(mx_status_message(st)).find("'a\\x00b' is used by 2 nodes") != std::string::npos);
  mx_status_release(st);
  mx_model_release(model);
}
