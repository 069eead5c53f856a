// Unnamed and duplicate-named nodes through every step that reads node
// names (tag, save in each storage, load, inspect, validate, functions,
// extract), and a record that cannot say which unnamed node it is.
#include <doctest/doctest.h>

#include "mx/onnx_proto.hpp"

#include "c_api_steps.hpp"
#include "fixture_model.hpp"

using namespace mx::hostile;
using mx::testing::tiny_net;

namespace {

onnx::ModelProto unnamed_and_duplicate_net() {
  auto m = tiny_net();
  m.mutable_graph()->mutable_node(0)->clear_name();
  m.mutable_graph()->mutable_node(1)->clear_name();
  m.mutable_graph()->mutable_node(2)->set_name("same");
  auto* extra = m.mutable_graph()->add_node();  // Identity after Relu, also "same"
  extra->set_op_type("Identity");
  extra->set_name("same");
  extra->add_input("Y");
  extra->add_output("Z");
  m.mutable_graph()->mutable_output(0)->set_name("Z");
  return m;
}

}  // namespace

TEST_CASE("unnamed and duplicate-named nodes: tag, save, load, inspect, validate, functions, extract") {
  Scratch s("unnamed_unnamed");
  write(s.models() / "u.onnx", bytes_of(unnamed_and_duplicate_net()));
  mx_model* m = load_tagged(s.models() / "u.onnx");
  const std::string h = json_of(
      [](const mx_model* x, const char*, char** o, size_t* n) { return mx_model_hierarchy_json(x, o, n); },
      m);
  CHECK(h.find("\"index\":3") != std::string::npos);
  for (const char* storage : {"metadata", "doc_string", "none"}) {
    INFO(storage);
    const std::string opts = std::string("{\"tag_storage\":\"") + storage + "\"}";
    REQUIRE(save(m, s.out() / "t.onnx", opts.c_str()).code == MX_OK);
    mx_model* again = load(s.out() / "t.onnx");
    const std::string h2 = json_of(
        [](const mx_model* x, const char*, char** o, size_t* n) { return mx_model_hierarchy_json(x, o, n); },
        again);
    // Four records, one per node.
    size_t records = 0;
    for (size_t p = 0; (p = h2.find("\"evidence\":\"", p)) != std::string::npos; ++p) ++records;
    CHECK(records == 4);
    CHECK(json_of(mx_model_modules_json, again).find("\"nodes\":4") != std::string::npos);
    const std::string report = validate(s.out() / "t.onnx");
    CHECK_MESSAGE(report.find("\"ok\":true") != std::string::npos, report);
    mx_model_release(again);
  }
  mx_model* f = load(s.out() / "t.onnx");
  mx_status* st = mx_model_to_functions(f, nullptr, nullptr, nullptr);
  CHECK_MESSAGE(st == nullptr, std::string(mx_status_message(st)));
  mx_status_release(st);
  mx_model* part = nullptr;
  // Names are the scope strategy's evidence: nameless nodes sit at the root.
  st = mx_model_extract(m, "", nullptr, &part);
  CHECK_MESSAGE(st == nullptr, std::string(mx_status_message(st)));
  mx_status_release(st);
  if (part) CHECK(save(part, s.out() / "fc.onnx").code == MX_OK);
  mx_model_release(part);
  mx_model_release(f);
  mx_model_release(m);
}

TEST_CASE("a record of an unnamed node without index is refused clearly") {
  Scratch s("unnamed_noindex");
  write(s.models() / "u.onnx", bytes_of(unnamed_and_duplicate_net()));
  mx_model* m = load(s.models() / "u.onnx");
  const char* doc =
      "{\"schema\":\"modelexport.hierarchy/1\",\"modules\":[],"
      "\"nodes\":[{\"name\":\"\",\"module\":\"\",\"evidence\":\"root\"}]}";
  mx_status* st = mx_model_set_hierarchy_json(m, doc, 0);
  CHECK(mx_status_code(st) == MX_ERR_SCHEMA);
  CHECK(std::string(mx_status_message(st)).find("nodes[0].index: required") != std::string::npos);
  mx_status_release(st);
  mx_model_release(m);
}
