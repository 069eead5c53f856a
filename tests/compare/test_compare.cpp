// mx_model_compare through the public C API on StackNet built in code: same
// structure -> no differences; an extra node in one module -> that module
// with its op delta; modules only in one model; models without records.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "compare_models.hpp"
#include "modelexport/modelexport.h"
#include "modelexport/modelexport.hpp"
#include "stacknet.hpp"

using nlohmann::json;
using namespace mx::testing;

namespace {

using ModelPtr = std::unique_ptr<mx_model, decltype(&mx_model_release)>;

ModelPtr load(const std::string& bytes, const std::string& hierarchy) {
  mx_model* m = nullptr;
  mx_status* st = mx_model_load_bytes(bytes.data(), bytes.size(), &m);
  REQUIRE_MESSAGE(st == nullptr, (st ? mx_status_message(st) : ""));
  if (!hierarchy.empty()) {
    st = mx_model_set_hierarchy_json(m, hierarchy.data(), hierarchy.size());
    REQUIRE_MESSAGE(st == nullptr, (st ? mx_status_message(st) : ""));
  }
  return ModelPtr(m, &mx_model_release);
}
ModelPtr stack(int blocks = 3) {
  return load(stack_net(blocks).SerializeAsString(), stack_net_hierarchy(blocks));
}
ModelPtr extra() {
  return load(stack_net_extra_bytes(), stack_net_extra_hierarchy());
}

json compare(const mx_model* a, const mx_model* b, const char* options = nullptr) {
  char* out = nullptr;
  size_t size = 0;
  mx_status* st = mx_model_compare(a, b, options, &out, &size);
  const std::string msg = st ? mx_status_message(st) : "";
  mx_status_release(st);
  REQUIRE_MESSAGE(st == nullptr, msg);
  REQUIRE(out != nullptr);
  CHECK(size == std::string(out).size());
  json j = json::parse(out);
  mx_free(out);
  return j;
}

const json& row(const json& report, const std::string& path) {
  for (const auto& r : report["modules"])
    if (r["path"] == path) return r;
  FAIL("no row for module '" << path << "'");
  static json none;
  return none;
}

}  // namespace

TEST_CASE("same structure: every module equal, no differences") {
  auto a = stack(), b = stack();
  const json r = compare(a.get(), b.get());
  const auto& s = r["summary"];
  CHECK(s["identical"] == true);
  CHECK(s["different"] == 0);
  CHECK(s["only_in_a"] == 0);
  CHECK(s["only_in_b"] == 0);
  CHECK(s["equal"] == s["modules"]);
  CHECK(s["modules"].get<int>() == 12);  // root, blocks, 3 x (block, fc, act), head
  CHECK(r["a"]["nodes"] == 14);
  for (const auto& m : r["modules"]) {
    CHECK(m["status"] == "equal");
    CHECK(m["descendants_differ"] == false);
    CHECK(m["ops_added"].empty());
    CHECK(m["ops_removed"].empty());
  }
}

TEST_CASE("an extra node in one module: that module reported with the op delta") {
  auto a = stack(), b = extra();
  const json r = compare(a.get(), b.get(), R"({"a_name":"plain","b_name":"extra"})");
  CHECK(r["a"]["name"] == "plain");
  CHECK(r["b"]["nodes"] == 15);
  const auto& s = r["summary"];
  CHECK(s["identical"] == false);
  CHECK(s["different"] == 1);
  CHECK(s["equal"] == 11);
  CHECK(s["equal_with_descendant_differences"] == 3);  // blocks.1, blocks, root
  const auto& act = row(r, "blocks.1.act");
  CHECK(act["status"] == "different");
  CHECK(act["class"] == "ReLU");
  CHECK(act["own_nodes"] == json{{"a", 1}, {"b", 2}, {"delta", 1}});
  CHECK(act["total_nodes"]["delta"] == 1);
  CHECK(act["ops_added"] == json{{"Identity", 1}});
  CHECK(act["ops_removed"].empty());
  CHECK(act["parameters"]["delta"] == 0);
  for (const char* up : {"blocks.1", "blocks", ""}) {
    CAPTURE(up);
    CHECK(row(r, up)["status"] == "equal");
    CHECK(row(r, up)["descendants_differ"] == true);
    CHECK(row(r, up)["total_nodes"]["delta"] == 1);
  }
  CHECK(row(r, "blocks.0.act")["descendants_differ"] == false);

  // The other direction: the Identity is removed.
  const json back = compare(b.get(), a.get());
  CHECK(row(back, "blocks.1.act")["ops_removed"] == json{{"Identity", 1}});
  CHECK(row(back, "blocks.1.act")["own_nodes"]["delta"] == -1);
}

TEST_CASE("modules present in only one model") {
  auto a = stack(3), b = stack(2);
  const json r = compare(a.get(), b.get());
  CHECK(r["summary"]["only_in_a"] == 3);  // blocks.2, blocks.2.fc, blocks.2.act
  CHECK(r["summary"]["only_in_b"] == 0);
  const auto& gone = row(r, "blocks.2");
  CHECK(gone["status"] == "only_in_a");
  CHECK(gone["total_nodes"] == 4);
  CHECK(gone["parameters"] == 20);
  CHECK(row(r, "blocks.2.fc")["ops"] == json{{"Add", 1}, {"MatMul", 1}});
  const json back = compare(b.get(), a.get());
  CHECK(back["summary"]["only_in_b"] == 3);
  CHECK(row(back, "blocks.2.act")["status"] == "only_in_b");
}

TEST_CASE("a model without hierarchy records is a clear error") {
  auto tagged = stack();
  auto plain = load(stack_net().SerializeAsString(), "");
  char* out = nullptr;
  mx_status* st = mx_model_compare(tagged.get(), plain.get(), R"({"b_name":"B.onnx"})", &out, nullptr);
  REQUIRE(st != nullptr);
  CHECK(mx_status_code(st) == MX_ERR_UNSUPPORTED);
  CHECK(std::string(mx_status_message(st)) ==
        "B.onnx carries no hierarchy records: tag it first with modelexport tag");
  mx_status_release(st);
  CHECK(out == nullptr);

  st = mx_model_compare(plain.get(), tagged.get(), nullptr, &out, nullptr);
  REQUIRE(st != nullptr);
  CHECK(std::string(mx_status_message(st)).find("model A carries no hierarchy records") == 0);
  mx_status_release(st);
}

TEST_CASE("argument errors") {
  auto a = stack();
  char* out = nullptr;
  mx_status* st = mx_model_compare(a.get(), nullptr, nullptr, &out, nullptr);
  CHECK(mx_status_code(st) == MX_ERR_INVALID_ARGUMENT);
  mx_status_release(st);
  st = mx_model_compare(a.get(), a.get(), nullptr, nullptr, nullptr);
  CHECK(mx_status_code(st) == MX_ERR_INVALID_ARGUMENT);
  mx_status_release(st);
  st = mx_model_compare(a.get(), a.get(), R"({"a_nam":"x"})", &out, nullptr);
  CHECK(mx_status_code(st) == MX_ERR_INVALID_ARGUMENT);
  mx_status_release(st);
}

TEST_CASE("C++ wrapper: Model::compare_json") {
  auto a = mx::Model::load_bytes(stack_net().SerializeAsString());
  a.set_hierarchy_json(stack_net_hierarchy());
  auto b = mx::Model::load_bytes(stack_net_extra_bytes());
  b.set_hierarchy_json(stack_net_extra_hierarchy());
  const json r = json::parse(a.compare_json(b));
  CHECK(r["summary"]["different"] == 1);
}
