// The whole "assign" operation, including snapping to a supplied module tree.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "file_modules.hpp"
#include "module_snap.hpp"
#include "path_placement.hpp"
#include "scope_name.hpp"
#include "scope_strategy.hpp"

using nlohmann::json;

namespace {

// The strategy on a JSON graph of nodes named `names`, with the supplied
// tree `modules`; the answer as the JSON response the plugin would send.
json assign(const json& graph, const json& modules = json::array()) {
  return mx_strategy::answer_json(
      mx::scope::assign_from_scopes(mx_strategy::JsonGraph(graph), mx_strategy::JsonModules(modules)));
}

json request(const std::vector<std::string>& names, const std::vector<std::string>& modules) {
  json nodes = json::array(), mods = json::array();
  for (size_t i = 0; i < names.size(); ++i) nodes.push_back({{"index", i}, {"name", names[i]}});
  for (const auto& m : modules) mods.push_back({{"path", m}, {"class", ""}});
  return assign({{"nodes", nodes}}, mods);
}

}  // namespace

TEST_CASE("assign leaves scope-less nodes out and tags the rest 'scope'") {
  json r = request({"/encoder/layer.0/dense/MatMul", "Constant_1", "/Mul"}, {});
  CHECK(r["schema"] == "modelexport.strategy-response/1");
  REQUIRE(r["assignments"].size() == 2);
  CHECK(r["assignments"][0] == json{{"node", 0}, {"module", "encoder.layer.0.dense"}, {"evidence", "scope"}});
  // "/Mul": the root's own forward; "Constant_1" (no slash): no evidence.
  CHECK(r["assignments"][1] == json{{"node", 2}, {"module", ""}, {"evidence", "scope"}});
  json with_tree = request({"/Mul"}, {"", "encoder"});
  REQUIRE(with_tree["assignments"].size() == 1);
  CHECK(with_tree["assignments"][0]["module"] == "");
}

TEST_CASE("snapping to the supplied modules") {
  mx::scope::ModuleSnap snap(
      {"", "encoder", "encoder.blocks", "encoder.blocks.attn", "encoder.blocks.attn.proj", "head"});
  SUBCASE("exact path") {
    CHECK(snap.resolve({"encoder", "blocks", "attn"}) == "encoder.blocks.attn");
  }
  SUBCASE("an uncalled container skipped by the scope") {
    CHECK(snap.resolve({"encoder", "attn", "proj"}) == "encoder.blocks.attn.proj");
  }
  SUBCASE("unknown tail stops at the deepest known module") {
    CHECK(snap.resolve({"encoder", "blocks", "nope", "proj"}) == "encoder.blocks");
  }
  SUBCASE("nothing known") {
    CHECK(snap.resolve({"decoder"}).empty());
  }
}

TEST_CASE("ambiguous descendants are not guessed") {
  mx::scope::ModuleSnap snap({"", "a", "a.x", "a.x.attn", "a.y", "a.y.attn"});
  CHECK(snap.resolve({"a", "attn"}) == "a");
}

TEST_CASE("with modules, an unresolvable scope is left to propagation") {
  json r = request({"/decoder/MatMul", "/encoder/attn/MatMul"},
                   {"", "encoder", "encoder.blocks", "encoder.blocks.attn"});
  REQUIRE(r["assignments"].size() == 1);
  CHECK(r["assignments"][0]["module"] == "encoder.blocks.attn");
}

TEST_CASE("a module's repeated call (torch.onnx scope 'relu_1') is that module") {
  mx::scope::ModuleSnap snap(
      {"", "layer1", "layer1.0", "layer1.0.conv1", "layer1.0.relu", "h", "h.0", "h.0.ln_1", "h.0.ln"});
  CHECK(snap.resolve({"layer1", "0", "relu_1"}) == "layer1.0.relu");
  CHECK(snap.resolve({"layer1", "0", "relu_12"}) == "layer1.0.relu");
  CHECK(snap.resolve({"layer1", "0_1", "conv1"}) == "layer1.0.conv1");  // the block called twice
  CHECK(snap.resolve({"h", "0", "ln_1"}) == "h.0.ln_1");                // a real module named ln_1 wins
  CHECK(snap.resolve({"layer1", "0", "conv2_1"}) == "layer1.0");        // no base module either
  CHECK(snap.resolve({"layer1", "0", "relu_"}) == "layer1.0");
  CHECK(snap.resolve({"layer1", "0", "_1"}) == "layer1.0");
}

TEST_CASE("without a tree, a scope repeating a parameter-free sibling is its repeated call") {
  json nodes = json::array();
  const std::vector<std::string> names = {"/layer1/layer1.0/relu/Relu",
                                          "/layer1/layer1.0/relu_1/Relu",
                                          "/layer1/layer1.0/relu_2/Relu",
                                          "/h.0/ln_1/LayerNormalization",
                                          "/h.0/ln/LayerNormalization",
                                          "/act_1/Sigmoid",
                                          "/block/conv/Conv",
                                          "/block_1/conv/Conv"};
  for (size_t i = 0; i < names.size(); ++i) nodes.push_back({{"index", i}, {"name", names[i]}});
  json graph = {{"nodes", nodes},
                {"initializers", {"h.0.ln_1.weight", "h.0.ln.weight", "block.conv.weight", "onnx::Conv_7"}}};
  json r = assign(graph);
  std::vector<std::string> got;
  for (const auto& a : r["assignments"]) got.push_back(a["module"]);
  CHECK(got == std::vector<std::string>{"layer1.0.relu", "layer1.0.relu", "layer1.0.relu", "h.0.ln_1",
                                        "h.0.ln", "act_1", "block.conv", "block.conv"});
}

TEST_CASE("repeated-call suffixes") {
  CHECK(mx::scope::repeated_call_base("relu_1") == "relu");
  CHECK(mx::scope::repeated_call_base("conv_12") == "conv");
  CHECK(mx::scope::repeated_call_base("relu").empty());
  CHECK(mx::scope::repeated_call_base("_1").empty());
  CHECK(mx::scope::repeated_call_base("relu_").empty());
  CHECK(mx::scope::repeated_call_base("relu_1a").empty());
}

TEST_CASE("names read in a row resolve as each alone (the walk resumes after shared scopes)") {
  // Consecutive names sharing leading scopes, where the shared part
  // snaps through an uncalled container, stops early, or is a repeated call.
  const std::vector<std::string> modules = {"",
                                            "encoder",
                                            "encoder.blocks",
                                            "encoder.blocks.attn",
                                            "encoder.blocks.attn.proj",
                                            "encoder.blocks.relu",
                                            "head"};
  const std::vector<std::string> names = {
      "/encoder/attn/proj/MatMul", "/encoder/attn/Softmax",  "/encoder/attn/proj/Add",
      "/encoder/nope/proj/Add",    "/encoder/nope/attn/Mul", "/encoder/nope/Mul",
      "/encoder/relu_1/Relu",      "/encoder/relu_1/x/Relu", "Constant_3",
      "/encoder/relu_1/Relu",      "/head/MatMul",           "/encoder/attn/proj/Add",
      "/encoder/attn/MatMul"};
  json together = request(names, modules);
  std::vector<json> alone;
  for (const auto& name : names) {
    const json one = request({name}, modules);
    for (const auto& a : one["assignments"]) alone.push_back(a["module"]);
  }
  std::vector<json> got;
  for (const auto& a : together["assignments"]) got.push_back(a["module"]);
  CHECK(got == alone);
  CHECK(got == std::vector<json>{"encoder.blocks.attn.proj", "encoder.blocks.attn",
                                 "encoder.blocks.attn.proj", "encoder", "encoder", "encoder",
                                 "encoder.blocks.relu", "encoder.blocks.relu", "encoder.blocks.relu", "head",
                                 "encoder.blocks.attn.proj", "encoder.blocks.attn"});
}

TEST_CASE("without a tree, '_N' scopes that are no repeated call keep their paths") {
  // ln_1 owns a weight, act_1 and block_1 have no sibling act / block:
  // nothing is a repeated call, each scope path is the module.
  json nodes = json::array();
  const std::vector<std::string> names = {"/h.0/ln_1/LayerNormalization", "/act_1/Sigmoid",
                                          "/block_1/conv/Conv", "Constant_2", "/Mul"};
  for (size_t i = 0; i < names.size(); ++i) nodes.push_back({{"index", i}, {"name", names[i]}});
  json graph = {{"nodes", nodes}, {"initializers", {"h.0.ln_1.weight", "h.0.ln.weight", "onnx::Conv_7"}}};
  const json r = assign(graph);
  std::vector<std::string> got;
  for (const auto& a : r["assignments"]) got.push_back(a["module"]);
  CHECK(got == std::vector<std::string>{"h.0.ln_1", "act_1", "block_1.conv", ""});
  CHECK_FALSE(mx::scope::shows_repeated_calls({"/h.0/ln_1/X", "/act_1/Y", "/block_1/conv/Z"},
                                              {"h.0.ln_1.weight", "h.0.ln.weight"}));
  // A parameter-free ln_2 beside ln (only ln owns a weight) is one.
  CHECK(mx::scope::shows_repeated_calls({"/h.0/ln_2/X"}, {"h.0.ln.weight"}));
  // So is a sibling shown only by another node's deeper scope.
  CHECK(mx::scope::shows_repeated_calls({"/relu_1/Relu", "/relu/inner/Relu"}, {}));
}

// The identity placement, read once per name: every node where its own
// scope path (scope_path_of) or the "/Mul" rule puts it, a name whose
// scopes repeat an earlier name's sharing its path (also across scope-less
// names), and each path listed once per run of nodes placed at it.
TEST_CASE("place_at_scope_paths: each node at its own scope path, read name by name") {
  const std::vector<std::string> names = {"/encoder/layer.0/dense/MatMul",
                                          "/encoder/layer.0/dense/Add",
                                          "Constant_3",
                                          "/Mul",
                                          "/encoder/layer.0/act/Relu",
                                          "/encoder/layer.0/act/X/",
                                          "a/b/C",
                                          "a/b/D",
                                          "/bad..scope/Op",
                                          "/bad..scope/Op2",
                                          "/",
                                          "/top/Op",
                                          "Add_4",
                                          "/top/Op2",
                                          "/top/ Op",
                                          "/ln_1/ln_1.0/Y"};
  json nodes = json::array();
  for (size_t i = 0; i < names.size(); ++i) nodes.push_back({{"index", i}, {"name", names[i]}});
  const json graph_json = {{"nodes", nodes}};
  const mx_strategy::JsonGraph graph(graph_json);
  const mx::scope::PathPlacement placed = mx::scope::place_at_scope_paths(graph);

  std::vector<std::pair<size_t, std::string>> expected;
  std::vector<std::string_view> steps;
  std::string alone;
  for (size_t i = 0; i < names.size(); ++i) {
    if (mx::scope::scope_path_of(names[i], steps, alone)) expected.emplace_back(i, alone);
    else if (mx::scope::is_root_scope_name(names[i])) expected.emplace_back(i, "");
  }
  std::vector<std::pair<size_t, std::string>> got;
  for (const auto& a : placed.answer.assignments) {
    got.emplace_back(a.node, std::string(a.module));
    CHECK(std::string_view(a.evidence) == "scope");
  }
  CHECK(got == expected);
  const auto& a = placed.answer.assignments;
  REQUIRE(a.size() == 9);
  CHECK(a[1].module.data() == a[0].module.data());  // one copy for the shared scopes
  CHECK(a[5].module == "top");
  CHECK(a[7].module == "top");  // "/top/ Op": the op's own name is no scope
  CHECK(placed.paths == std::vector<std::string_view>{"encoder.layer.0.dense", "encoder.layer.0.act",
                                                      "encoder.layer.0.act.X", "top", "ln_1.0"});
  CHECK(placed.paths[0].data() == a[0].module.data());  // views into the answer
}

TEST_CASE("has_repeated_call_atom: an atom ending in _<digits>, anywhere in the path") {
  CHECK(mx::scope::has_repeated_call_atom("relu_1"));
  CHECK(mx::scope::has_repeated_call_atom("layer1.0.relu_12.inner"));
  CHECK(mx::scope::has_repeated_call_atom("a.b_2"));
  CHECK_FALSE(mx::scope::has_repeated_call_atom(""));
  CHECK_FALSE(mx::scope::has_repeated_call_atom("encoder.layer.0.dense"));
  CHECK_FALSE(mx::scope::has_repeated_call_atom("a._1.b"));       // "_1": nothing before the '_'
  CHECK_FALSE(mx::scope::has_repeated_call_atom("relu_.x"));      // no digits after it
  CHECK_FALSE(mx::scope::has_repeated_call_atom("relu_1a.x_y"));  // not only digits
  CHECK(mx::scope::has_repeated_call_atom("x_1_2"));              // the last '_' counts
}
