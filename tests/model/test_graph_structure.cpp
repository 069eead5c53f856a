// The SDK's own structure check (model/check.hpp): cycles, undefined inputs
// and values with two writers are errors naming the nodes, before the ONNX
// checker runs (at IR 8 / opset 17 and IR 10 / opset 18 alike), and tagging
// refuses such graphs before any strategy runs.
#include <doctest/doctest.h>

#include "fixture_model.hpp"
#include "model/check.hpp"
#include "test_support.hpp"
#include "util/error.hpp"

using namespace mx;
using namespace mx::testing;

namespace {

// The message of the Error check_graph_structure throws ("" when none).
std::string structure_error(const onnx::ModelProto& m, mx_code* code = nullptr) {
  try {
    model::check_graph_structure(m, "m.onnx");
  } catch (const Error& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "";
}

// TinyNet plus `If(cond) -> r`, whose then/else branches are Identity(read).
onnx::ModelProto with_if(const char* read, const char* next_reads_r = nullptr) {
  onnx::ModelProto m = tiny_net();
  auto* g = m.mutable_graph();
  g->add_input()->set_name("cond");
  auto* n = add_node(g, "/if", "If", {"cond"}, {"r"});
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = n->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* sg = a->mutable_g();
    sg->set_name(branch);
    add_node(sg, std::string("/if/") + branch, "Identity", {read}, {"out"});
    sg->add_output()->set_name("out");
  }
  if (next_reads_r) add_node(g, "/after_if", "Relu", {"r"}, {next_reads_r});
  return m;
}

}  // namespace

TEST_CASE("structure: a well-formed graph passes") {
  CHECK(structure_error(tiny_net()) == "");
  // Omitted optional inputs/outputs ("") are not values.
  onnx::ModelProto m = tiny_net();
  add_node(m.mutable_graph(), "/clip", "Clip", {"Y", "", ""}, {"clipped"});
  add_node(m.mutable_graph(), "/drop", "Dropout", {"clipped"}, {"dropped", ""});
  CHECK(structure_error(m) == "");
  // Unordered but acyclic: ordering is libonnx's business, not this check's.
  m = tiny_net();
  m.mutable_graph()->mutable_node()->SwapElements(0, 2);
  CHECK(structure_error(m) == "");
}

TEST_CASE("structure: a cycle names its nodes and values") {
  mx_code code = MX_OK;
  const std::string e = structure_error(broken_net("cycle"), &code);
  CHECK(code == MX_ERR_SCHEMA);
  CHECK(e.find("m.onnx: the nodes form a cycle: ") == 0);
  CHECK(e.find("'/fc/Add' (Add) -[z]-> '/act/Relu' (Relu) -[Y]-> '/fc/Add' (Add)") != std::string::npos);
  CHECK(e.find("/fc/MatMul") == std::string::npos);  // before the cycle, not on it
  CHECK(e.find("2 node(s) lie on or after a cycle") != std::string::npos);

  onnx::ModelProto self = tiny_net();
  self.mutable_graph()->mutable_node(2)->set_input(0, "Y");  // Relu(Y) -> Y
  CHECK(structure_error(self).find("'/act/Relu' (Relu) -[Y]-> '/act/Relu' (Relu)") != std::string::npos);

  onnx::ModelProto unnamed = broken_net("cycle");
  unnamed.mutable_graph()->mutable_node(2)->clear_name();
  CHECK(structure_error(unnamed).find("#2 (Relu)") != std::string::npos);
}

TEST_CASE("structure: undefined inputs and duplicate writers") {
  CHECK(structure_error(broken_net("undefined")) ==
        "m.onnx: undefined input: node '/fc/Add' (Add) reads 'ghost' "
        "(no node, graph input or initializer defines it)");
  CHECK(structure_error(broken_net("duplicate")) ==
        "m.onnx: value 'h' is written by node '/fc/MatMul' (MatMul) and also by node "
        "'/fc/Shadow' (Identity) (every value must have exactly one writer)");
  onnx::ModelProto m = tiny_net();
  add_node(m.mutable_graph(), "/overwrite", "Identity", {"Y"}, {"fc.weight"});
  CHECK(structure_error(m).find("value 'fc.weight' is a graph input or initializer and also by node "
                                "'/overwrite' (Identity)") != std::string::npos);
}

TEST_CASE("structure: subgraphs see enclosing values; their reads are edges") {
  CHECK(structure_error(with_if("z")) == "");  // z: a value of the main graph
  const std::string e = structure_error(with_if("nowhere"));
  CHECK(e.find("subgraph 'then_branch' of node '/if' (If): undefined input: node "
               "'/if/then_branch' (Identity) reads 'nowhere'") != std::string::npos);
  // /if reads Y inside its branches; Y <- /act/Relu <- /fc/Add <- X: fine.
  CHECK(structure_error(with_if("Y")) == "");
  // ... but if /fc/Add reads what follows /if, the implicit read closes a cycle.
  onnx::ModelProto m = with_if("Y", "after");
  m.mutable_graph()->mutable_node(1)->set_input(1, "after");
  CHECK(structure_error(m).find("the nodes form a cycle") != std::string::npos);
}

TEST_CASE("structure: checked whatever the IR and opset; check_onnx reports it first") {
  for (const char* defect : {"cycle", "undefined", "duplicate"}) {
    CAPTURE(defect);
    const onnx::ModelProto m = broken_net(defect, 10, 18);
    CHECK(structure_error(m) != "");
    try {
      model::check_onnx(m, "m.onnx");
      FAIL("check_onnx accepted a broken graph");
    } catch (const Error& e) {
      CHECK(std::string(e.what()) == structure_error(m));
    }
  }
}

TEST_CASE("structure: mx_registry_tag refuses a broken graph, the model is unchanged") {
  mx_registry* reg = nullptr;
  REQUIRE(mx_registry_create("{\"plugin_dirs\":[]}", &reg) == nullptr);
  for (const char* defect : {"cycle", "undefined", "duplicate"}) {
    CAPTURE(defect);
    const std::string bytes = broken_net(defect, 10, 18).SerializeAsString();
    mx_model* raw = nullptr;
    REQUIRE(mx_model_load_bytes(bytes.data(), bytes.size(), &raw) == nullptr);
    ModelPtr model = adopt(raw);
    char* before = nullptr;
    REQUIRE(mx_model_hierarchy_json(model.get(), &before, nullptr) == nullptr);
    const std::string before_text = take_text(before);
    const Outcome o = outcome(mx_registry_tag(reg, "auto", model.get(), nullptr));
    CHECK(o.code == MX_ERR_SCHEMA);
    // Same text after the model's display name.
    const std::string want = structure_error(broken_net(defect, 10, 18)).substr(std::string("m.onnx").size());
    CHECK(o.message.size() > want.size());
    CHECK(o.message.compare(o.message.size() - want.size(), want.size(), want) == 0);
    char* after = nullptr;
    REQUIRE(mx_model_hierarchy_json(model.get(), &after, nullptr) == nullptr);
    CHECK(take_text(after) == before_text);
  }
  mx_registry_release(reg);
}
