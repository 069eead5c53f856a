// The usage strategy: parameter names, chain following, the module choice
// rule, shared parameters, odd graphs.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "request_graph.hpp"
#include "module_choice.hpp"
#include "parameter_name.hpp"
#include "static_chains.hpp"
#include "usage_strategy.hpp"

using namespace mx::usage;

namespace {

// The usage view of a graph sent as JSON, with the decoding problems.
GraphView graph_from_json(const nlohmann::json& json, std::vector<std::string>& problems) {
  mx_strategy::JsonGraph graph(json);
  problems.insert(problems.end(), graph.problems().begin(), graph.problems().end());
  return usage_view(graph);
}

NodeView n(std::string op, std::vector<std::string> in, std::vector<std::string> out) {
  return {std::move(op), std::move(in), std::move(out)};
}

std::map<size_t, std::string> run(const GraphView& g, UsageOptions options = {}) {
  std::map<size_t, std::string> out;
  for (const auto& a : assign_by_usage(g, options)) out[a.node] = a.module;
  return out;
}

}  // namespace

TEST_CASE("parameter names") {
  CHECK(module_of_parameter("encoder.layer.0.attention.self.query.weight") ==
        "encoder.layer.0.attention.self.query");
  CHECK(module_of_parameter("fc.bias") == "fc");
  CHECK(module_of_parameter("layer1.0.bn1.running_mean") == "layer1.0.bn1");
  CHECK(module_of_parameter("blocks.my-key.weight") == "blocks.my-key");  // ModuleDict key
  CHECK_FALSE(module_of_parameter("onnx::MatMul_123"));
  CHECK_FALSE(module_of_parameter("/encoder/layer.0/Constant_output_0"));
  CHECK_FALSE(module_of_parameter("input.1"));      // TorchScript value name
  CHECK_FALSE(module_of_parameter("_val_12"));      // dynamo constant
  CHECK_FALSE(module_of_parameter("class_token"));  // root-level: no evidence
  CHECK_FALSE(module_of_parameter(""));
  CHECK_FALSE(module_of_parameter("."));
  CHECK_FALSE(module_of_parameter("a..weight"));
  CHECK_FALSE(module_of_parameter(".weight"));
  CHECK_FALSE(module_of_parameter("a b.weight"));
}

TEST_CASE("module choice rule") {
  CHECK(choose_module({"fc.weight", "fc.bias"}) == "fc");
  // Fused node: the weight names the layer that computes.
  CHECK(choose_module({"attn.out.bias", "ln.weight", "ln.bias"}) == "ln");
  // Two weights of sibling modules: their deepest common ancestor.
  CHECK(choose_module({"block.q.weight", "block.k.weight"}) == "block");
  // Nothing in common but the root: no evidence.
  CHECK_FALSE(choose_module({"a.weight", "b.weight"}));
  CHECK_FALSE(choose_module({}));
  CHECK_FALSE(choose_module({"onnx::Gemm_1"}));
}

TEST_CASE("direct consumers get the parameter's module") {
  GraphView g;
  g.initializers = {"fc.weight", "fc.bias", "onnx::MatMul_9"};
  g.nodes = {n("Gemm", {"x", "fc.weight", "fc.bias"}, {"y"}), n("Relu", {"y"}, {"z"}),
             n("MatMul", {"z", "onnx::MatMul_9"}, {"w"})};
  auto got = run(g);
  CHECK(got == std::map<size_t, std::string>{{0, "fc"}});
}

TEST_CASE("chains of pass-through nodes are followed, and their nodes assigned") {
  GraphView g;
  g.initializers = {"enc.q.weight", "enc.q.weight_scale", "zp", "shape"};
  g.nodes = {
      n("Constant", {}, {"axes"}),
      n("DequantizeLinear", {"enc.q.weight", "enc.q.weight_scale", "zp"}, {"w_fp"}),
      n("Cast", {"w_fp"}, {"w_cast"}),
      n("Transpose", {"w_cast"}, {"w_t"}),
      n("Unsqueeze", {"w_t", "axes"}, {"w_u"}),
      n("Reshape", {"w_u", "shape"}, {"w_r"}),
      n("Identity", {"w_r"}, {"w_i"}),
      n("MatMul", {"x", "w_i"}, {"y"}),
  };
  auto got = run(g);
  CHECK(got.count(0) == 0);  // constants follow their consumers (core)
  for (size_t i = 1; i <= 7; ++i) {
    CAPTURE(i);
    CHECK(got[i] == "enc.q");
  }
}

TEST_CASE("a pass-through op on an activation is computation, not a chain") {
  GraphView g;
  g.initializers = {"a.weight", "shape"};
  g.nodes = {n("MatMul", {"x", "a.weight"}, {"y"}),
             n("Reshape", {"y", "shape"}, {"z"}),  // activation: not a chain
             n("Transpose", {"z"}, {"t"})};
  auto got = run(g);
  CHECK(got == std::map<size_t, std::string>{{0, "a"}});
}

TEST_CASE("chain resolution does not depend on node order") {
  GraphView g;
  g.initializers = {"m.weight"};
  g.nodes = {n("MatMul", {"x", "w2"}, {"y"}), n("Cast", {"w1"}, {"w2"}),
             n("Transpose", {"m.weight"}, {"w1"})};
  auto got = run(g);
  CHECK(got == std::map<size_t, std::string>{{0, "m"}, {1, "m"}, {2, "m"}});
}

TEST_CASE("shared parameters are no evidence unless asked for") {
  GraphView g;
  g.initializers = {"wte.weight"};
  g.nodes = {n("Gather", {"wte.weight", "ids"}, {"h"}), n("Transpose", {"wte.weight"}, {"wt"}),
             n("MatMul", {"h2", "wt"}, {"logits"})};
  CHECK(run(g).empty());
  UsageOptions share;
  share.use_shared_parameters = true;
  auto got = run(g, share);
  CHECK(got.size() == 3);
  CHECK(got[2] == "wte");
}

TEST_CASE("torch.onnx de-duplicated initializers: Identity(kept) -> parameter name") {
  // torch >= 1.13 keeps one of several equal-valued parameters and writes
  // the others as Identity nodes named for them (BERT with fresh weights:
  // every LayerNorm bias points at embeddings.LayerNorm.bias).
  GraphView g;
  g.initializers = {"emb.ln.bias", "emb.ln.weight", "onnx::MatMul_7"};
  g.nodes = {n("Identity", {"emb.ln.bias"}, {"layer.0.ln.bias"}),
             n("Identity", {"emb.ln.weight"}, {"layer.0.ln.weight"}),
             n("Identity", {"emb.ln.bias"}, {"layer.0.q.bias"}),
             n("LayerNormalization", {"x", "emb.ln.weight", "emb.ln.bias"}, {"h"}),
             n("MatMul", {"h", "onnx::MatMul_7"}, {"m"}),
             n("Add", {"layer.0.q.bias", "m"}, {"q"}),
             n("LayerNormalization", {"q", "layer.0.ln.weight", "layer.0.ln.bias"}, {"y"}),
             n("Identity", {"emb.ln.bias"}, {"not_a_parameter"})};
  auto got = run(g);
  CHECK(got == std::map<size_t, std::string>{{0, "layer.0.ln"},
                                             {1, "layer.0.ln"},
                                             {2, "layer.0.q"},
                                             {3, "emb.ln"},
                                             {5, "layer.0.q"},
                                             {6, "layer.0.ln"},
                                             {7, "emb.ln"}});
}

TEST_CASE("degenerate graphs") {
  GraphView empty;
  CHECK(run(empty).empty());
  GraphView odd;
  odd.initializers = {"m.weight"};
  odd.nodes = {n("", {}, {}), n("Relu", {"", ""}, {""}), n("Add", {"m.weight", "m.weight"}, {})};
  auto got = run(odd);
  CHECK(got == std::map<size_t, std::string>{{2, "m"}});
  // A cycle through pass-through nodes (invalid ONNX) must terminate.
  GraphView cyc;
  cyc.initializers = {"m.weight"};
  cyc.nodes = {n("Identity", {"b"}, {"a"}), n("Identity", {"a"}, {"b"})};
  CHECK(run(cyc).empty());
}

TEST_CASE("graph view decoding tolerates odd JSON") {
  std::vector<std::string> problems;
  auto g = graph_from_json(nlohmann::json::parse(R"({
      "nodes": [{"index": 1, "op_type": "Relu", "inputs": ["x", 3], "outputs": ["y"]},
                {"index": 0, "op_type": "Gemm", "inputs": ["x", "fc.weight"]},
                "junk"],
      "initializers": ["fc.weight", null]})"),
                           problems);
  REQUIRE(g.nodes.size() == 3);
  CHECK(g.nodes[0].op_type == "Gemm");
  CHECK(g.nodes[1].op_type == "Relu");
  CHECK(g.nodes[1].inputs == std::vector<std::string>{"x", ""});
  CHECK(problems.size() == 1);
  CHECK(g.initializers.count("fc.weight") == 1);
  problems.clear();
  CHECK(graph_from_json(nlohmann::json(), problems).nodes.empty());
  CHECK(problems.size() == 1);
}

// ---- forward outlines in the request's "modules" (docs/hierarchy-schema.md)

namespace {

nlohmann::json mod(const std::string& path, const std::string& cls, long long own,
                   std::vector<std::pair<std::string, std::string>> forward) {
  nlohmann::json steps = nlohmann::json::array();
  for (auto& [kind, name] : forward) steps.push_back({{kind, name}});
  return {{"path", path}, {"class", cls}, {"own_parameters", own}, {"forward", steps}};
}

}  // namespace

TEST_CASE("outlines: a tied embedding keeps its Gather, the head's MatMul stays without evidence") {
  GraphView g;
  g.initializers = {"wte.weight"};
  g.nodes = {n("Gather", {"wte.weight", "ids"}, {"e"}), n("Transpose", {"wte.weight"}, {"wt"}),
             n("MatMul", {"h", "wt"}, {"y"})};
  nlohmann::json modules = nlohmann::json::array({mod("", "LM", 0, {{"call", "wte"}, {"call", "lm_head"}}),
                                                  mod("wte", "Embedding", 64, {{"op", "aten::embedding"}}),
                                                  mod("lm_head", "Linear", 64, {{"op", "aten::linear"}})});
  UsageOptions with;
  with.outlines = ModuleOutlines(mx_strategy::JsonModules(modules));
  auto r = run(g, with);
  CHECK(r == std::map<size_t, std::string>{{0, "wte"}});
  CHECK(run(g).empty());  // without outlines: shared, no evidence
}

TEST_CASE("outlines: merged LayerNorm weights (one owner, called once) stay no evidence") {
  GraphView g;
  g.initializers = {"l0.ln.weight"};
  g.nodes = {n("LayerNormalization", {"x", "l0.ln.weight"}, {"a"}),
             n("LayerNormalization", {"a", "l0.ln.weight"}, {"b"})};
  nlohmann::json modules =
      nlohmann::json::array({mod("", "Net", 0, {{"call", "l0.ln"}, {"call", "l1.ln"}}),
                             mod("l0.ln", "LayerNorm", 8, {{"op", "aten::layer_norm"}}),
                             mod("l1.ln", "LayerNorm", 8, {{"op", "aten::layer_norm"}})});
  UsageOptions with;
  with.outlines = ModuleOutlines(mx_strategy::JsonModules(modules));
  CHECK(run(g, with).empty());
}

TEST_CASE("outlines: a module called twice keeps both of its ops") {
  GraphView g;
  g.initializers = {"shared.conv.weight"};
  g.nodes = {n("Conv", {"x", "shared.conv.weight"}, {"a"}), n("Conv", {"a", "shared.conv.weight"}, {"b"})};
  nlohmann::json modules =
      nlohmann::json::array({mod("", "Net", 0, {{"call", "shared"}, {"call", "shared"}}),
                             mod("shared", "Block", 0, {{"call", "shared.conv"}}),
                             mod("shared.conv", "Conv2d", 9, {{"op", "aten::_convolution"}})});
  UsageOptions with;
  with.outlines = ModuleOutlines(mx_strategy::JsonModules(modules));
  CHECK(run(g, with) == std::map<size_t, std::string>{{0, "shared.conv"}, {1, "shared.conv"}});
}

TEST_CASE("outlines: a parameter named after a module nobody calls goes to its running alias") {
  GraphView g;  // T5: `shared` and `encoder.embed_tokens` are one Embedding
  g.initializers = {"shared.weight"};
  g.nodes = {n("Gather", {"shared.weight", "ids"}, {"e"})};
  nlohmann::json modules = nlohmann::json::array(
      {mod("", "T5", 0, {{"call", "encoder"}}), mod("shared", "Embedding", 64, {{"op", "aten::embedding"}}),
       mod("encoder", "T5Stack", 0, {{"op", "aten::view"}, {"call", "encoder.embed_tokens"}}),
       mod("encoder.embed_tokens", "Embedding", 64, {{"op", "aten::embedding"}})});
  UsageOptions with;
  with.outlines = ModuleOutlines(mx_strategy::JsonModules(modules));
  CHECK(run(g, with) == std::map<size_t, std::string>{{0, "encoder.embed_tokens"}});
  // Two called candidates: no guess, the parameter's own name.
  modules.push_back(mod("decoder.embed_tokens", "Embedding", 64, {{"op", "aten::embedding"}}));
  modules[0]["forward"].push_back({{"call", "decoder.embed_tokens"}});
  with.outlines = ModuleOutlines(mx_strategy::JsonModules(modules));
  CHECK(run(g, with) == std::map<size_t, std::string>{{0, "shared"}});
}

TEST_CASE("outlines: a module that never runs lends its weights to the ancestor that reads them") {
  GraphView g;  // nn.MultiheadAttention: out_proj is never called, MHA reads out_proj.weight
  g.initializers = {"attn.out_proj.weight"};
  g.nodes = {n("MatMul", {"x", "attn.out_proj.weight"}, {"y"})};
  nlohmann::json modules = nlohmann::json::array(
      {mod("", "Net", 0, {{"call", "attn"}}),
       mod("attn", "MultiheadAttention", 0, {{"op", "aten::_native_multi_head_attention"}}),
       {{"path", "attn.out_proj"},
        {"class", "NonDynamicallyQuantizableLinear"},
        {"own_parameters", 16}}});  // no "forward": the tracer never entered it
  UsageOptions with;
  with.outlines = ModuleOutlines(mx_strategy::JsonModules(modules));
  CHECK(run(g, with) == std::map<size_t, std::string>{{0, "attn"}});
  CHECK(run(g) == std::map<size_t, std::string>{{0, "attn.out_proj"}});  // without outlines
  // Called after all (a normal Linear): its own module.
  modules[1]["forward"].push_back({{"call", "attn.out_proj"}});
  with.outlines = ModuleOutlines(mx_strategy::JsonModules(modules));
  CHECK(run(g, with) == std::map<size_t, std::string>{{0, "attn.out_proj"}});
}

// ---- weights the exporter renamed (anonymous_weights.hpp)

TEST_CASE("renamed weights: folded Convs are matched by size and call order") {
  // ResNet block in small: BatchNorm folded into each Conv (`onnx::Conv_N`
  // weight and a new bias); conv1 and conv2 have the same size, conv3 not.
  GraphView g;
  g.initializer_order = {"onnx::Conv_1", "onnx::Conv_2", "onnx::Conv_3", "onnx::Conv_4",
                         "onnx::Conv_5", "onnx::Conv_6", "fc.weight",    "fc.bias"};
  for (const auto& i : g.initializer_order) g.initializers.insert(i);
  g.shapes = {{"onnx::Conv_1", {4, 4, 3, 3}}, {"onnx::Conv_2", {4}},
              {"onnx::Conv_3", {4, 4, 3, 3}}, {"onnx::Conv_4", {4}},
              {"onnx::Conv_5", {8, 4, 1, 1}}, {"onnx::Conv_6", {8}},
              {"fc.weight", {2, 8}},          {"fc.bias", {2}}};
  g.nodes = {n("Conv", {"x", "onnx::Conv_1", "onnx::Conv_2"}, {"a"}), n("Relu", {"a"}, {"b"}),
             n("Conv", {"b", "onnx::Conv_3", "onnx::Conv_4"}, {"c"}),
             n("Conv", {"c", "onnx::Conv_5", "onnx::Conv_6"}, {"d"}),
             n("Gemm", {"d", "fc.weight", "fc.bias"}, {"y"})};
  nlohmann::json modules = nlohmann::json::array({mod("", "Net", 0,
                                                      {{"call", "conv1"},
                                                       {"call", "bn1"},
                                                       {"call", "relu"},
                                                       {"call", "conv2"},
                                                       {"call", "bn2"},
                                                       {"call", "conv3"},
                                                       {"call", "bn3"},
                                                       {"call", "fc"}}),
                                                  mod("conv1", "Conv2d", 144, {{"op", "aten::_convolution"}}),
                                                  mod("bn1", "BatchNorm2d", 8, {{"op", "aten::batch_norm"}}),
                                                  mod("relu", "ReLU", 0, {{"op", "aten::relu"}}),
                                                  mod("conv2", "Conv2d", 144, {{"op", "aten::_convolution"}}),
                                                  mod("bn2", "BatchNorm2d", 8, {{"op", "aten::batch_norm"}}),
                                                  mod("conv3", "Conv2d", 32, {{"op", "aten::_convolution"}}),
                                                  mod("bn3", "BatchNorm2d", 16, {{"op", "aten::batch_norm"}}),
                                                  mod("fc", "Linear", 18, {{"op", "aten::linear"}})});
  UsageOptions with;
  with.outlines = ModuleOutlines(mx_strategy::JsonModules(modules));
  const std::map<size_t, std::string> want = {{0, "conv1"}, {2, "conv2"}, {3, "conv3"}, {4, "fc"}};
  CHECK(run(g, with) == want);
  auto by_size = assign_by_usage(g, with);
  CHECK(std::count_if(by_size.begin(), by_size.end(), [](auto& a) { return a.by_size; }) == 3);
  // Without a hierarchy (no sizes, no order) or without shapes: names only.
  CHECK(run(g) == std::map<size_t, std::string>{{4, "fc"}});
  GraphView no_shapes = g;
  no_shapes.shapes.clear();
  CHECK(run(no_shapes, with) == std::map<size_t, std::string>{{4, "fc"}});
  // Without outlines, the hierarchy's module order stands in for the calls.
  for (auto& m : modules) m.erase("forward");
  with.outlines = ModuleOutlines(mx_strategy::JsonModules(modules));
  CHECK(run(g, with) == want);
}

TEST_CASE("renamed weights: a size class with a stray member is left alone") {
  GraphView g;  // two 16-element renamed weights, one 16-element module
  g.initializer_order = {"onnx::MatMul_1", "onnx::MatMul_2"};
  g.initializers = {"onnx::MatMul_1", "onnx::MatMul_2"};
  g.shapes = {{"onnx::MatMul_1", {4, 4}}, {"onnx::MatMul_2", {4, 4}}};
  g.nodes = {n("MatMul", {"x", "onnx::MatMul_1"}, {"a"}), n("MatMul", {"a", "onnx::MatMul_2"}, {"b"})};
  nlohmann::json modules = nlohmann::json::array(
      {mod("", "Net", 0, {{"call", "q"}}), mod("q", "Linear", 16, {{"op", "aten::linear"}})});
  UsageOptions with;
  with.outlines = ModuleOutlines(mx_strategy::JsonModules(modules));
  CHECK(run(g, with).empty());
}

TEST_CASE("renamed weights: the reader of a named bias anchors its MatMul, then order") {
  // Linear weights pre-transposed (`onnx::MatMul_N`), biases keep their
  // names; the file lists k's MatMul before q's (an optimizer re-sorted them).
  GraphView g;
  g.initializer_order = {"onnx::MatMul_1", "onnx::MatMul_2", "q.bias", "k.bias", "onnx::Slice_9"};
  for (const auto& i : g.initializer_order) g.initializers.insert(i);
  g.shapes = {{"onnx::MatMul_1", {4, 4}},
              {"onnx::MatMul_2", {4, 4}},
              {"q.bias", {4}},
              {"k.bias", {4}},
              {"onnx::Slice_9", {4, 4}}};
  g.nodes = {n("MatMul", {"x", "onnx::MatMul_2"}, {"km"}), n("Add", {"km", "k.bias"}, {"k"}),
             n("MatMul", {"x", "onnx::MatMul_1"}, {"qm"}), n("Add", {"qm", "q.bias"}, {"q"}),
             n("Slice", {"onnx::Slice_9", "s"}, {"pos"})};  // a folded buffer: no layer
  nlohmann::json modules = nlohmann::json::array({mod("", "Attn", 0, {{"call", "q"}, {"call", "k"}}),
                                                  mod("q", "Linear", 20, {{"op", "aten::linear"}}),
                                                  mod("k", "Linear", 20, {{"op", "aten::linear"}})});
  UsageOptions with;
  with.outlines = ModuleOutlines(mx_strategy::JsonModules(modules));
  CHECK(run(g, with) == std::map<size_t, std::string>{{0, "k"}, {1, "k"}, {2, "q"}, {3, "q"}});
}

TEST_CASE("renamed weights: hostile outlines (cycles, exponential calls) stay bounded") {
  nlohmann::json modules = nlohmann::json::array({mod("", "Net", 0, {{"call", "a0"}, {"call", "a0"}})});
  for (int i = 0; i < 40; ++i) {  // a_i calls a_{i+1} twice: 2^40 paths
    std::string me = "a" + std::to_string(i), next = "a" + std::to_string(i + 1);
    modules.push_back(mod(me, "Block", 1, {{"call", next}, {"call", next}, {"call", me}}));
  }
  ModuleOutlines outlines{mx_strategy::JsonModules(modules)};
  auto order = outlines.parameter_modules_in_call_order();
  CHECK(order.size() <= 1000000);
  CHECK(order.front() == "a0");
}

TEST_CASE("graph view decoding: initializer shapes") {
  std::vector<std::string> problems;
  auto g = graph_from_json(nlohmann::json::parse(R"({"nodes": [],
      "initializers": ["a.weight", "onnx::Conv_1", "c"],
      "initializer_shapes": [[2, 3], [], [-1]]})"),
                           problems);
  CHECK(g.shapes.at("a.weight") == std::vector<int64_t>{2, 3});
  CHECK(g.shapes.at("onnx::Conv_1").empty());  // a scalar
  CHECK_FALSE(g.shapes.count("c"));            // negative: not a shape
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "graph.initializer_shapes[2] is not a shape");
  problems.clear();
  graph_from_json(nlohmann::json::parse(R"({"nodes": [], "initializers": ["a"],
      "initializer_shapes": []})"),
                  problems);
  CHECK(problems == std::vector<std::string>{"graph.initializer_shapes does not match graph.initializers"});
}

TEST_CASE("renamed weights: the bias dimension follows the op (MatMul [in, out], Gemm/Conv [out, ...])") {
  // ConvNeXt in small: fc1 4->8 then fc2 8->4, weights pre-transposed for
  // MatMul, zero biases de-duplicated under another name. Both weights have
  // 32 elements; with their biases fc1 is 40, fc2 36. Reading fc2's [8, 4]
  // weight's first dimension as its bias would make it 40 = fc1.
  GraphView g;
  g.initializer_order = {"onnx::MatMul_1", "onnx::MatMul_2", "norm.bias"};
  for (const auto& i : g.initializer_order) g.initializers.insert(i);
  g.shapes = {{"onnx::MatMul_1", {4, 8}}, {"onnx::MatMul_2", {8, 4}}, {"norm.bias", {8}}};
  g.nodes = {n("MatMul", {"x", "onnx::MatMul_1"}, {"h"}), n("Add", {"h", "norm.bias"}, {"h2"}),
             n("MatMul", {"h2", "onnx::MatMul_2"}, {"y"})};
  nlohmann::json modules = nlohmann::json::array(
      {mod("", "Block", 0, {{"call", "norm"}, {"call", "fc2"}, {"call", "fc1"}}),  // call order: fc2 first
       mod("norm", "LayerNorm", 8, {{"op", "aten::layer_norm"}}),
       mod("fc1", "Linear", 40, {{"op", "aten::linear"}}),
       mod("fc2", "Linear", 36, {{"op", "aten::linear"}})});
  UsageOptions with;
  with.outlines = ModuleOutlines(mx_strategy::JsonModules(modules));
  auto r = run(g, with);
  CHECK(r.at(0) == "fc1");
  CHECK(r.at(2) == "fc2");
}
