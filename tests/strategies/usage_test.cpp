// The usage strategy: parameter names, chain following, the module choice
// rule, shared parameters, odd graphs.
#include <doctest/doctest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "graph_view.hpp"
#include "module_choice.hpp"
#include "parameter_name.hpp"
#include "static_chains.hpp"
#include "usage_strategy.hpp"

using namespace mx_usage;

namespace {

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
  CHECK_FALSE(module_of_parameter("input.1"));       // TorchScript value name
  CHECK_FALSE(module_of_parameter("_val_12"));       // dynamo constant
  CHECK_FALSE(module_of_parameter("class_token"));   // root-level: no evidence
  CHECK_FALSE(module_of_parameter(""));
  CHECK_FALSE(module_of_parameter("."));
  CHECK_FALSE(module_of_parameter("a..weight"));
  CHECK_FALSE(module_of_parameter(".weight"));
  CHECK_FALSE(module_of_parameter("a b.weight"));
}

TEST_CASE("common ancestor respects component boundaries") {
  CHECK(common_ancestor("layer1.0.conv1", "layer1.0.bn1") == "layer1.0");
  CHECK(common_ancestor("layer1", "layer10") == "");
  CHECK(common_ancestor("a.b", "a.b") == "a.b");
  CHECK(common_ancestor("a.b", "a.b.c") == "a.b");
  CHECK(common_ancestor("", "x") == "");
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
  g.nodes = {n("Gemm", {"x", "fc.weight", "fc.bias"}, {"y"}),
             n("Relu", {"y"}, {"z"}),
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
             n("Reshape", {"y", "shape"}, {"z"}),        // activation: not a chain
             n("Transpose", {"z"}, {"t"})};
  auto got = run(g);
  CHECK(got == std::map<size_t, std::string>{{0, "a"}});
}

TEST_CASE("chain resolution does not depend on node order") {
  GraphView g;
  g.initializers = {"m.weight"};
  g.nodes = {n("MatMul", {"x", "w2"}, {"y"}),
             n("Cast", {"w1"}, {"w2"}),
             n("Transpose", {"m.weight"}, {"w1"})};
  auto got = run(g);
  CHECK(got == std::map<size_t, std::string>{{0, "m"}, {1, "m"}, {2, "m"}});
}

TEST_CASE("shared parameters are no evidence unless asked for") {
  GraphView g;
  g.initializers = {"wte.weight"};
  g.nodes = {n("Gather", {"wte.weight", "ids"}, {"h"}),
             n("Transpose", {"wte.weight"}, {"wt"}),
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
  CHECK(got == std::map<size_t, std::string>{{0, "layer.0.ln"}, {1, "layer.0.ln"},
                                             {2, "layer.0.q"}, {3, "emb.ln"},
                                             {5, "layer.0.q"}, {6, "layer.0.ln"},
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
  nlohmann::json modules = nlohmann::json::array(
      {mod("", "LM", 0, {{"call", "wte"}, {"call", "lm_head"}}),
       mod("wte", "Embedding", 64, {{"op", "aten::embedding"}}),
       mod("lm_head", "Linear", 64, {{"op", "aten::linear"}})});
  UsageOptions with;
  with.outlines = ModuleOutlines(modules);
  auto r = run(g, with);
  CHECK(r == std::map<size_t, std::string>{{0, "wte"}});
  CHECK(run(g).empty());  // without outlines: shared, no evidence
}

TEST_CASE("outlines: merged LayerNorm weights (one owner, called once) stay no evidence") {
  GraphView g;
  g.initializers = {"l0.ln.weight"};
  g.nodes = {n("LayerNormalization", {"x", "l0.ln.weight"}, {"a"}),
             n("LayerNormalization", {"a", "l0.ln.weight"}, {"b"})};
  nlohmann::json modules = nlohmann::json::array(
      {mod("", "Net", 0, {{"call", "l0.ln"}, {"call", "l1.ln"}}),
       mod("l0.ln", "LayerNorm", 8, {{"op", "aten::layer_norm"}}),
       mod("l1.ln", "LayerNorm", 8, {{"op", "aten::layer_norm"}})});
  UsageOptions with;
  with.outlines = ModuleOutlines(modules);
  CHECK(run(g, with).empty());
}

TEST_CASE("outlines: a module called twice keeps both of its ops") {
  GraphView g;
  g.initializers = {"shared.conv.weight"};
  g.nodes = {n("Conv", {"x", "shared.conv.weight"}, {"a"}), n("Conv", {"a", "shared.conv.weight"}, {"b"})};
  nlohmann::json modules = nlohmann::json::array(
      {mod("", "Net", 0, {{"call", "shared"}, {"call", "shared"}}),
       mod("shared", "Block", 0, {{"call", "shared.conv"}}),
       mod("shared.conv", "Conv2d", 9, {{"op", "aten::_convolution"}})});
  UsageOptions with;
  with.outlines = ModuleOutlines(modules);
  CHECK(run(g, with) == std::map<size_t, std::string>{{0, "shared.conv"}, {1, "shared.conv"}});
}

TEST_CASE("outlines: a parameter named after a module nobody calls goes to its running alias") {
  GraphView g;  // T5: `shared` and `encoder.embed_tokens` are one Embedding
  g.initializers = {"shared.weight"};
  g.nodes = {n("Gather", {"shared.weight", "ids"}, {"e"})};
  nlohmann::json modules = nlohmann::json::array(
      {mod("", "T5", 0, {{"call", "encoder"}}),
       mod("shared", "Embedding", 64, {{"op", "aten::embedding"}}),
       mod("encoder", "T5Stack", 0, {{"op", "aten::view"}, {"call", "encoder.embed_tokens"}}),
       mod("encoder.embed_tokens", "Embedding", 64, {{"op", "aten::embedding"}})});
  UsageOptions with;
  with.outlines = ModuleOutlines(modules);
  CHECK(run(g, with) == std::map<size_t, std::string>{{0, "encoder.embed_tokens"}});
  // Two called candidates: no guess, the parameter's own name.
  modules.push_back(mod("decoder.embed_tokens", "Embedding", 64, {{"op", "aten::embedding"}}));
  modules[0]["forward"].push_back({{"call", "decoder.embed_tokens"}});
  with.outlines = ModuleOutlines(modules);
  CHECK(run(g, with) == std::map<size_t, std::string>{{0, "shared"}});
}

TEST_CASE("outlines: a module that never runs lends its weights to the ancestor that reads them") {
  GraphView g;  // nn.MultiheadAttention: out_proj is never called, MHA reads out_proj.weight
  g.initializers = {"attn.out_proj.weight"};
  g.nodes = {n("MatMul", {"x", "attn.out_proj.weight"}, {"y"})};
  nlohmann::json modules = nlohmann::json::array(
      {mod("", "Net", 0, {{"call", "attn"}}),
       mod("attn", "MultiheadAttention", 0, {{"op", "aten::_native_multi_head_attention"}}),
       {{"path", "attn.out_proj"}, {"class", "NonDynamicallyQuantizableLinear"},
        {"own_parameters", 16}}});  // no "forward": the tracer never entered it
  UsageOptions with;
  with.outlines = ModuleOutlines(modules);
  CHECK(run(g, with) == std::map<size_t, std::string>{{0, "attn"}});
  CHECK(run(g) == std::map<size_t, std::string>{{0, "attn.out_proj"}});  // without outlines
  // Called after all (a normal Linear): its own module.
  modules[1]["forward"].push_back({{"call", "attn.out_proj"}});
  with.outlines = ModuleOutlines(modules);
  CHECK(run(g, with) == std::map<size_t, std::string>{{0, "attn.out_proj"}});
}
