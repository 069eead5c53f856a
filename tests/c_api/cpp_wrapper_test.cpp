// The header-only C++ wrapper over the shared library. A separate program
// from the core's test groups on purpose: the wrapper's mx::Error and the
// core's internal one must never meet in one binary.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "modelexport/modelexport.hpp"

namespace {
const char* fixture_path() {
  return std::getenv("MX_TINY_ONNX");
}
}  // namespace

TEST_CASE("wrapper: load, records, save round trip") {
  REQUIRE(fixture_path());
  auto model = mx::Model::load_file(fixture_path());
  CHECK(model.node_count() == 3);
  CHECK(model.has_hierarchy());
  CHECK(model.node_record("/fc/MatMul").find("\"module\":\"fc\"") != std::string::npos);
  model.set_node_record("/act/Relu", R"({"module":"act","evidence":"scope"})");
  const std::string bytes = model.save_bytes(R"({"tag_storage":"doc_string"})");
  auto again = mx::Model::load_bytes(bytes);
  CHECK(again.node_record("/act/Relu").find("\"evidence\":\"scope\"") != std::string::npos);
  CHECK(again.hierarchy_json() == model.hierarchy_json());
  CHECK(again.graph_json().find("\"op_type\":\"Relu\"") != std::string::npos);
  again.check_model();
}

TEST_CASE("wrapper: errors carry code and message") {
  try {
    mx::Model::load_file("/no/such/model.onnx");
    FAIL("expected an exception");
  } catch (const mx::Error& e) {
    CHECK(e.code() == MX_ERR_IO);
    CHECK(std::string(e.code_name()) == "io");
    CHECK(std::string(e.what()) == "/no/such/model.onnx: no such file");
  }
  auto model = mx::Model::load_file(fixture_path());
  const std::string expected = "no node named 'ghost' in " + std::string(fixture_path());
  CHECK_THROWS_WITH_AS(model.node_record("ghost"), expected.c_str(), mx::Error);
  CHECK_THROWS_AS(model.save_bytes(R"({"nope":1})"), mx::Error);
  auto [major, minor, patch] = mx::version();
  CHECK(mx::version_string() ==
        std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch));
}
