// Node records through the C API, the graph view and the checker.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fixture_model.hpp"
#include "test_support.hpp"

using namespace mx::testing;
using nlohmann::json;

namespace {
ModelPtr tiny() {
  const std::string bytes = tiny_net_bytes();
  mx_model* m = nullptr;
  REQUIRE(mx_model_load_bytes(bytes.data(), bytes.size(), &m) == nullptr);
  return adopt(m);
}
Outcome set_record(mx_model* m, const char* node, const std::string& rec) {
  return outcome(mx_model_set_node_record(m, node, rec.data(), rec.size()));
}
}  // namespace

TEST_CASE("records: set and get") {
  auto model = tiny();
  SUBCASE("without a module tree") {
    CHECK(set_record(model.get(), "/fc/Add", R"({"module":"fc","evidence":"scope"})").code == MX_OK);
    char* out = nullptr;
    REQUIRE(mx_model_node_record(model.get(), "/fc/Add", &out, nullptr) == nullptr);
    CHECK(json::parse(take_text(out)) == json::parse(R"({"module":"fc","tag":"","evidence":"scope"})"));
    CHECK(mx_model_has_hierarchy(model.get()) == 1);
  }
  SUBCASE("with a tree the tag is derived") {
    const std::string h = tiny_net_hierarchy();
    REQUIRE(mx_model_set_hierarchy_json(model.get(), h.data(), h.size()) == nullptr);
    CHECK(set_record(model.get(), "/act/Relu", R"({"module":"act","evidence":"direct"})").code == MX_OK);
    char* out = nullptr;
    REQUIRE(mx_model_node_record(model.get(), "/act/Relu", &out, nullptr) == nullptr);
    CHECK(json::parse(take_text(out))["tag"] == "/TinyNet/ReLU");
    auto o = set_record(model.get(), "/act/Relu", R"({"module":"nope","evidence":"direct"})");
    CHECK(o.code == MX_ERR_SCHEMA);
    CHECK(o.message == "record.module: 'nope' is not in the module tree");
  }
  SUBCASE("unknown node") {
    auto o = set_record(model.get(), "ghost", R"({"module":"","evidence":"root"})");
    CHECK(o.code == MX_ERR_NOT_FOUND);
    CHECK(o.message == "no node named 'ghost' in model");
  }
  SUBCASE("invalid record") {
    auto o = set_record(model.get(), "/fc/Add", R"({"module":"fc","evidence":"guess"})");
    CHECK(o.code == MX_ERR_SCHEMA);
    CHECK(o.message.find("record: record.evidence: 'guess' is not one of") == 0);
    CHECK(set_record(model.get(), "/fc/Add", "{").code == MX_ERR_PARSE);
  }
  SUBCASE("get on a node without record") {
    auto o = outcome(mx_model_node_record(model.get(), "/fc/Add", nullptr, nullptr));
    CHECK(o.code == MX_ERR_NOT_FOUND);
    CHECK(o.message == "node '/fc/Add' has no hierarchy record in model");
  }
}

TEST_CASE("set_hierarchy_json rejects records for nodes the graph lacks") {
  auto model = tiny();
  auto doc = json::parse(tiny_net_hierarchy());
  doc["nodes"][1]["name"] = "/fc/Gemm";
  const std::string text = doc.dump();
  auto o = outcome(mx_model_set_hierarchy_json(model.get(), text.data(), text.size()));
  CHECK(o.code == MX_ERR_SCHEMA);
  CHECK(o.message == "hierarchy: nodes[1].name: '/fc/Gemm' is not a node of model");
  CHECK(mx_model_has_hierarchy(model.get()) == 0);
}

// How records find their nodes (model/record_keys.hpp), whichever way
// set_hierarchy takes to it: a record whose index names a node of its very
// name is attached there directly, the others through the name index.
TEST_CASE("set_hierarchy_json: record keys") {
  auto model = tiny();
  auto doc = json::parse(tiny_net_hierarchy());
  auto set = [&](const json& nodes) {
    doc["nodes"] = nodes;
    const std::string text = doc.dump();
    return outcome(mx_model_set_hierarchy_json(model.get(), text.data(), text.size()));
  };
  auto record = [](const char* name, int index) {
    return json{{"name", name}, {"index", index}, {"module", "fc"}, {"evidence", "direct"}};
  };
  SUBCASE("a stale index beside a unique name: the name wins") {
    REQUIRE(set(json::array({record("/fc/Add", 0)})).code == MX_OK);
    char* out = nullptr;
    REQUIRE(mx_model_hierarchy_json(model.get(), &out, nullptr) == nullptr);
    const json stored = json::parse(take_text(out))["nodes"];
    REQUIRE(stored.size() == 1);
    CHECK(stored[0]["name"] == "/fc/Add");
    CHECK(stored[0]["index"] == 1);
  }
  SUBCASE("two records reaching one node") {
    auto o = set(json::array({record("/fc/Add", 1), record("/fc/Add", 7)}));
    CHECK(o.code == MX_ERR_SCHEMA);
    CHECK(o.message == "hierarchy: nodes[1]: node 1 ('/fc/Add') already has a record (nodes[0])");
    CHECK(mx_model_has_hierarchy(model.get()) == 0);
  }
  SUBCASE("an index out of order given twice") {
    auto o = set(json::array({record("/act/Relu", 2), record("/fc/Add", 1), record("/fc/MatMul", 1)}));
    CHECK(o.code == MX_ERR_SCHEMA);
    CHECK(o.message == "hierarchy: nodes[2].index: 1 has two records");
    CHECK(mx_model_has_hierarchy(model.get()) == 0);
  }
  SUBCASE("records in graph order with their indexes") {
    CHECK(set(json::array({record("/fc/MatMul", 0), record("/fc/Add", 1), record("/act/Relu", 2)})).code ==
          MX_OK);
  }
}

TEST_CASE("graph view") {
  auto model = tiny();
  char* out = nullptr;
  REQUIRE(mx_model_graph_json(model.get(), &out, nullptr) == nullptr);
  auto g = json::parse(take_text(out));
  CHECK(g["ir_version"] == 8);
  CHECK(g["opset_import"][""] == 17);
  CHECK(g["inputs"][0] == json::parse(R"({"name":"X","dtype":"float32","shape":["N",4]})"));
  CHECK(g["initializers"][0]["shape"] == json::array({4, 3}));
  CHECK(g["nodes"].size() == 3);
  CHECK(g["nodes"][1]["op_type"] == "Add");
  CHECK(g["nodes"][1]["metadata"] == json::object());
  SUBCASE("one node by index") {
    REQUIRE(mx_model_node_json(model.get(), 2, &out, nullptr) == nullptr);
    CHECK(json::parse(take_text(out))["name"] == "/act/Relu");
    auto o = outcome(mx_model_node_json(model.get(), 3, &out, nullptr));
    CHECK(o.code == MX_ERR_NOT_FOUND);
    CHECK(o.message == "node index 3 out of range (model has 3 nodes)");
  }
}

TEST_CASE("checker") {
  CHECK(mx_model_check(tiny().get()) == nullptr);
  const std::string bad = invalid_net().SerializeAsString();
  mx_model* m = nullptr;
  REQUIRE(mx_model_load_bytes(bad.data(), bad.size(), &m) == nullptr);
  auto o = outcome(mx_model_check(adopt(m).get()));
  CHECK(o.code == MX_ERR_SCHEMA);
  CHECK(o.message.find("broken_relu") != std::string::npos);
}

TEST_CASE("version and NULL handles") {
  uint32_t major = 9, minor = 9, patch = 9;
  mx_version(&major, &minor, &patch);
  CHECK(std::string(mx_version_string()) ==
        std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch));
  mx_model_release(nullptr);
  mx_free(nullptr);
  CHECK(mx_model_node_count(nullptr) == 0);
  CHECK(mx_model_has_hierarchy(nullptr) == 0);
  CHECK(outcome(mx_model_check(nullptr)).code == MX_ERR_INVALID_ARGUMENT);
}
