// The functions pass, extraction, module statistics, rendering and
// validation through the public C API, on StackNet (built in code) and
// TinyNet.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "fixture_model.hpp"
#include "modelexport/modelexport.h"
#include "scratch_dir.hpp"
#include "stacknet.hpp"

using mx::testing::stack_net;
using mx::testing::stack_net_hierarchy;
using nlohmann::json;

namespace {

struct Outcome {
  mx_code code;
  std::string message;
};
Outcome outcome(mx_status* st) {
  Outcome o{mx_status_code(st), mx_status_message(st)};
  mx_status_release(st);
  return o;
}
#define MX_OK_(call) REQUIRE_MESSAGE(mx_status_code(call) == MX_OK, "call failed")

using ModelPtr = std::unique_ptr<mx_model, decltype(&mx_model_release)>;

ModelPtr load(const std::string& bytes, const std::string& hierarchy) {
  mx_model* m = nullptr;
  auto o = outcome(mx_model_load_bytes(bytes.data(), bytes.size(), &m));
  REQUIRE_MESSAGE(o.code == MX_OK, o.message);
  if (!hierarchy.empty()) {
    o = outcome(mx_model_set_hierarchy_json(m, hierarchy.data(), hierarchy.size()));
    REQUIRE_MESSAGE(o.code == MX_OK, o.message);
  }
  return ModelPtr(m, &mx_model_release);
}
ModelPtr stack() {
  return load(stack_net().SerializeAsString(), stack_net_hierarchy());
}

json take(char* text) {
  json j = json::parse(text);
  mx_free(text);
  return j;
}

json to_functions(mx_model* m, const char* options) {
  char* report = nullptr;
  auto o = outcome(mx_model_to_functions(m, options, &report, nullptr));
  REQUIRE_MESSAGE(o.code == MX_OK, o.message);
  return take(report);
}

json graph(const mx_model* m) {
  char* out = nullptr;
  auto o = outcome(mx_model_graph_json(m, &out, nullptr));
  REQUIRE_MESSAGE(o.code == MX_OK, o.message);
  return take(out);
}

// A file in the process's own scratch directory (removed at exit).
std::string scratch(const std::string& name) {
  static const mx::testing::ScratchDir dir;
  return dir.file(name);
}

}  // namespace

TEST_CASE("default selection: the three Blocks share one function") {
  auto m = stack();
  const json r = to_functions(m.get(), nullptr);
  CHECK(r["functions"] == 1);
  CHECK(r["calls"] == 3);
  CHECK(r["definitions"][0]["name"] == "Block");
  CHECK(r["definitions"][0]["body_nodes"] == 4);
  CHECK(r["definitions"][0]["instances"] == json({"blocks.0", "blocks.1", "blocks.2"}));
  CHECK(r["record_mismatches"] == 0);
  // 3 calls + the head's 2 nodes; the checker passes.
  CHECK(mx_model_node_count(m.get()) == 5);
  CHECK(mx_status_code(mx_model_check(m.get())) == MX_OK);
  const json g = graph(m.get());
  for (const auto& n : g["nodes"])
    if (n["domain"] == "modelexport.fn") {
      CHECK(n["op_type"] == "Block");
      CHECK(n["inputs"].size() == 3);  // activation + weight + bias
    }
}

TEST_CASE("classes: nested functions (Block calls Linear) and records on both levels") {
  auto m = stack();
  const json r = to_functions(m.get(), R"({"classes":["Block","Linear"]})");
  // Linear inside blocks and the head share one structure (MatMul+Add).
  CHECK(r["functions"] == 2);
  CHECK(r["calls"] == 7);
  char* out = nullptr;
  MX_OK_(mx_model_modules_json(m.get(), nullptr, &out, nullptr));
  const json stats = take(out);
  CHECK(stats["nodes"] == 14);  // expanded count equals the flat model's
  for (const auto& row : stats["modules"]) {
    if (row["path"] == "blocks.1") {
      CHECK(row["function"] == "Block");
      CHECK(row["total_nodes"] == 4);
      CHECK(row["own_nodes"] == 1);
    }
    if (row["path"] == "blocks.1.fc") {
      CHECK(row["function"] == "Linear");
      CHECK(row["ops"] == json({{"Add", 1}, {"MatMul", 1}}));
    }
    if (row["path"] == "head") CHECK(row["function"] == "Linear");
  }
  // The counts alone ("rows": false) agree with the rows and the document.
  MX_OK_(mx_model_modules_json(m.get(), R"({"rows": false, "statistics": true})", &out, nullptr));
  const json counts = take(out);
  char* doc_text = nullptr;
  MX_OK_(mx_model_hierarchy_json(m.get(), &doc_text, nullptr));
  const json doc = take(doc_text);
  CHECK(counts["module_count"] == doc["modules"].size());
  CHECK(counts["statistics"] == doc["statistics"]);
  CHECK(counts["top_level_nodes"] == stats["top_level_nodes"]);
  CHECK_FALSE(counts.contains("modules"));
  // Save and validate: every function-body node carries a relative record.
  const std::string path = scratch("stack_fn.onnx");
  MX_OK_(mx_model_save_file(m.get(), path.c_str(), nullptr));
  char* rep = nullptr;
  MX_OK_(mx_validate_file(path.c_str(), nullptr, &rep, nullptr));
  const json v = take(rep);
  CHECK_MESSAGE(v["ok"] == true, v.dump());
  CHECK(v["checked"]["function_nodes"] == 5);  // Block: Linear call, Relu, Add; Linear: MatMul, Add
}

TEST_CASE("different structures get different functions") {
  // Block 1 with an extra op: structure differs, so 2 functions.
  onnx::ModelProto p = stack_net();
  for (auto& n : *p.mutable_graph()->mutable_node())
    if (n.name() == "/blocks.1/act/Relu") n.set_op_type("Sigmoid");
  auto m = load(p.SerializeAsString(), stack_net_hierarchy());
  const json r = to_functions(m.get(), nullptr);
  CHECK(r["functions"] == 2);
  CHECK(r["calls"] == 3);
  CHECK(r["definitions"][1]["name"] == "Block_1");
}

TEST_CASE("functions: errors leave the model untouched") {
  auto m = stack();
  auto o = outcome(mx_model_to_functions(m.get(), R"({"classes":["Nope"]})", nullptr, nullptr));
  CHECK(o.code == MX_ERR_NOT_FOUND);
  CHECK(o.message.find("Nope") != std::string::npos);
  CHECK(mx_model_node_count(m.get()) == 14);
  o = outcome(mx_model_to_functions(m.get(), R"({"clases":[]})", nullptr, nullptr));
  CHECK(o.code == MX_ERR_INVALID_ARGUMENT);
  auto bare = load(stack_net().SerializeAsString(), "");
  o = outcome(mx_model_to_functions(bare.get(), nullptr, nullptr, nullptr));
  CHECK(o.code == MX_ERR_UNSUPPORTED);
  to_functions(m.get(), nullptr);
  o = outcome(mx_model_to_functions(m.get(), nullptr, nullptr, nullptr));
  CHECK(o.code == MX_ERR_UNSUPPORTED);  // already has functions
}

TEST_CASE("extract a block: boundary typed, weights as initializers, records kept") {
  auto m = stack();
  mx_model* part = nullptr;
  MX_OK_(mx_model_extract(m.get(), "blocks.1", nullptr, &part));
  ModelPtr p(part, &mx_model_release);
  const json g = graph(p.get());
  CHECK(g["nodes"].size() == 4);
  REQUIRE(g["inputs"].size() == 1);
  CHECK(g["inputs"][0]["name"] == "/blocks.0/Add_output_0");
  CHECK(g["inputs"][0]["dtype"] == "float32");
  REQUIRE(g["outputs"].size() == 1);
  CHECK(g["outputs"][0]["name"] == "/blocks.1/Add_output_0");
  CHECK(g["initializers"].size() == 2);
  CHECK(mx_status_code(mx_model_check(p.get())) == MX_OK);
  char* rec = nullptr;
  MX_OK_(mx_model_node_record(p.get(), "/blocks.1/fc/MatMul", &rec, nullptr));
  CHECK(take(rec)["module"] == "blocks.1.fc");
}

TEST_CASE("extract: unknown path lists the closest paths") {
  auto m = stack();
  mx_model* part = nullptr;
  auto o = outcome(mx_model_extract(m.get(), "block.1", nullptr, &part));
  CHECK(o.code == MX_ERR_NOT_FOUND);
  CHECK(part == nullptr);
  CHECK(o.message.find("closest: 'blocks.1'") != std::string::npos);
}

TEST_CASE("render: DOT clusters and well-formed GraphML") {
  auto m = stack();
  char* dot = nullptr;
  MX_OK_(mx_model_render(m.get(), "dot", nullptr, &dot, nullptr));
  const std::string d = dot;
  mx_free(dot);
  CHECK(d.find("subgraph \"cluster_") != std::string::npos);
  CHECK(d.find("blocks.2.fc\\nLinear") != std::string::npos);
  char* gml = nullptr;
  MX_OK_(mx_model_render(m.get(), "graphml", nullptr, &gml, nullptr));
  const std::string x = gml;
  mx_free(gml);
  CHECK(x.find("<graph id=\"m") != std::string::npos);
  auto o = outcome(mx_model_render(m.get(), "svg", nullptr, &dot, nullptr));
  CHECK(o.code == MX_ERR_INVALID_ARGUMENT);
}

TEST_CASE("validate: missing records, unknown modules, sidecar disagreement") {
  auto m = stack();
  const std::string good = scratch("stack.onnx");
  MX_OK_(mx_model_save_file(m.get(), good.c_str(), nullptr));
  char* rep = nullptr;
  MX_OK_(mx_validate_file(good.c_str(), nullptr, &rep, nullptr));
  json v = take(rep);
  CHECK_MESSAGE(v["ok"] == true, v.dump());

  // No records at all: every node is listed.
  auto bare = load(stack_net().SerializeAsString(), "");
  const std::string none = scratch("bare.onnx");
  MX_OK_(mx_model_save_file(bare.get(), none.c_str(), R"({"sidecar":false})"));
  std::filesystem::remove(scratch("bare.hierarchy.json"));
  MX_OK_(mx_validate_file(none.c_str(), nullptr, &rep, nullptr));
  v = take(rep);
  CHECK(v["ok"] == false);
  CHECK(v["issues"].size() == 14);
  CHECK(v["issues"][0]["kind"] == "missing_record");

  // Sidecar says something else for one node.
  std::ifstream in(scratch("stack.hierarchy.json"));
  json side = json::parse(in);
  in.close();
  for (auto& n : side["nodes"])
    if (n["name"] == "/head/Add") n["module"] = "blocks.0";
  std::ofstream(scratch("stack.hierarchy.json")) << side.dump();
  MX_OK_(mx_validate_file(good.c_str(), nullptr, &rep, nullptr));
  v = take(rep);
  CHECK(v["ok"] == false);
  bool found = false;
  for (const auto& i : v["issues"]) found |= i["kind"] == "sidecar_mismatch" && i["node"] == "/head/Add";
  CHECK_MESSAGE(found, v.dump());
}
