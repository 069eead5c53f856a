// The propagation rule (docs/tagging.md) case by case.
#include <doctest/doctest.h>

#include "tagging/graph_edges.hpp"
#include "tagging/op_classes.hpp"
#include "tagging/propagation.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

using namespace mx;

namespace {

// Builds a graph from "name: in1,in2 -> out" style triples.
// The view's value names are views: its own storage keeps them.
struct G {
  GraphView view;
  G& node(const std::string& name, std::vector<std::string> in, std::vector<std::string> out) {
    view.add_node(name, "Op", in, out);
    return *this;
  }
};

Assignment A(const std::string& m, const std::string& e = "scope") {
  return {m, hierarchy::evidence_from_name(e)};
}

// Propagation with supplied modules, read from their JSON and from the
// module tree tagging keeps them in: the same answer both ways.
std::vector<Assignment> with_modules(const GraphView& view, const Assignments& a,
                                     const nlohmann::json& modules) {
  auto from_json = propagate(view, a, modules);
  auto from_tree = propagate(view, a, ModuleTree::from_entries(modules));
  REQUIRE(from_json.size() == from_tree.size());
  for (size_t i = 0; i < from_json.size(); ++i) {
    CHECK(from_json[i].module == from_tree[i].module);
    CHECK(from_json[i].evidence == from_tree[i].evidence);
  }
  return from_json;
}

void check(const Assignment& got, const std::string& module, const std::string& evidence) {
  CHECK(got.module == module);
  REQUIRE(got.placed());
  CHECK(hierarchy::evidence_name(*got.evidence) == evidence);
}

}  // namespace

TEST_CASE("strategy assignments are kept as they are") {
  G g;
  g.node("a", {}, {"t"}).node("b", {"t"}, {"u"});
  auto r = propagate(g.view, {A("x.y"), A("z", "parameter")});
  check(r[0], "x.y", "scope");
  check(r[1], "z", "parameter");
}

TEST_CASE("a constant takes the common module of its consumers") {
  G g;  // c feeds q (enc.self.query) and k (enc.self.key)
  g.node("c", {}, {"c"}).node("q", {"c"}, {"q"}).node("k", {"c"}, {"k"});
  auto r = propagate(g.view, {Assignment(), A("enc.self.query"), A("enc.self.key")});
  check(r[0], "enc.self", "propagated");
}

TEST_CASE("ancestor-or-self: a consumer's own module counts as common") {
  G g;
  g.node("c", {}, {"c"}).node("a", {"c"}, {"a"}).node("b", {"c"}, {"b"});
  auto r = propagate(g.view, {Assignment(), A("enc"), A("enc.layer.0")});
  check(r[0], "enc", "propagated");
}

TEST_CASE("chains of constants and shape ops resolve through unplaced consumers") {
  G g;  // Constant -> Cast -> Unsqueeze -> MatMul(enc.q); listed out of order on purpose
  g.node("mm", {"u"}, {"y"})
      .node("unsq", {"cast"}, {"u"})
      .node("cast", {"k"}, {"cast"})
      .node("const", {}, {"k"});
  auto r = propagate(g.view, {A("enc.q"), Assignment(), Assignment(), Assignment()});
  check(r[1], "enc.q", "propagated");
  check(r[2], "enc.q", "propagated");
  check(r[3], "enc.q", "propagated");
}

TEST_CASE("consumers win over producers") {
  G g;
  g.node("p", {}, {"p"}).node("n", {"p"}, {"n"}).node("c", {"n"}, {"c"});
  auto r = propagate(g.view, {A("producer"), Assignment(), A("consumer")});
  check(r[1], "consumer", "propagated");
}

TEST_CASE("without placed consumers, producers decide") {
  G g;  // a graph-output Add fed by two modules
  g.node("q", {}, {"q"}).node("k", {}, {"k"}).node("add", {"q", "k"}, {"y"});
  auto r = propagate(g.view, {A("enc.self.query"), A("enc.self.key"), Assignment()});
  check(r[2], "enc.self", "propagated");
}

TEST_CASE("producer chains resolve forward") {
  G g;
  g.node("q", {}, {"q"}).node("r1", {"q"}, {"r1"}).node("r2", {"r1"}, {"r2"});
  auto r = propagate(g.view, {A("head"), Assignment(), Assignment()});
  check(r[1], "head", "propagated");
  check(r[2], "head", "propagated");
}

TEST_CASE("isolated nodes go to the root") {
  G g;
  g.node("lonely", {}, {"out"}).node("q", {"x"}, {"q"});
  auto r = propagate(g.view, {Assignment(), A("enc")});
  check(r[0], "", "root");
}

TEST_CASE("disjoint consumers meet at the root, still 'propagated'") {
  G g;
  g.node("c", {}, {"c"}).node("a", {"c"}, {"a"}).node("b", {"c"}, {"b"});
  auto r = propagate(g.view, {Assignment(), A("encoder"), A("decoder")});
  check(r[0], "", "propagated");
}

TEST_CASE("nothing placed: everything is root") {
  G g;
  g.node("a", {}, {"a"}).node("b", {"a"}, {"b"});
  auto r = propagate(g.view, {Assignment(), Assignment()});
  check(r[0], "", "root");
  check(r[1], "", "root");
}

TEST_CASE("topological order is deterministic and respects edges") {
  G g;
  g.node("mm", {"u"}, {"y"})
      .node("unsq", {"cast"}, {"u"})
      .node("cast", {"k"}, {"cast"})
      .node("const", {}, {"k"});
  CHECK(topological_order(g.view) == std::vector<size_t>{3, 2, 1, 0});
}

// ---- data-path rule (docs/tagging.md §3, step 1) -------------------------
// Graphs below start at a graph input "x" (no node produces it), so the
// nodes after it carry activations ("data" nodes); Constant-only feeds are
// "side" nodes and keep the consumers-first rule.

namespace {

struct D {
  GraphView view;
  D& node(const std::string& name, const std::string& op, std::vector<std::string> in,
          std::vector<std::string> out) {
    view.add_node(name, op, in, out);
    return *this;
  }
};

nlohmann::json module(const std::string& path, const std::string& cls, long long params,
                      const std::string& qualified = "") {
  nlohmann::json m = {{"path", path}, {"class", cls}, {"parameters", params}, {"own_parameters", params}};
  if (!qualified.empty()) m["qualified_class"] = qualified;
  return m;
}

}  // namespace

TEST_CASE("post-processing after a leaf stays with the producers' parent (attention scores)") {
  D g;  // q, k: Linear leaves of enc.self; scores = q.k / c feed enc.out.dense
  g.node("q", "MatMul", {"x"}, {"q"})
      .node("k", "MatMul", {"x"}, {"k"})
      .node("s", "MatMul", {"q", "k"}, {"s"})
      .node("sm", "Softmax", {"s"}, {"p"})
      .node("d", "MatMul", {"p"}, {"y"});
  auto r = propagate(g.view, {A("enc.self.q", "parameter"), A("enc.self.k", "parameter"), Assignment(),
                              Assignment(), A("enc.out.dense", "parameter")});
  check(r[2], "enc.self", "propagated");
  check(r[3], "enc.self", "propagated");
}

TEST_CASE("side nodes still take their consumers' module") {
  D g;  // a Constant feeding the consumer's op goes with the consumer
  g.node("a", "MatMul", {"x"}, {"a"}).node("c", "Constant", {}, {"c"}).node("b", "Add", {"a", "c"}, {"y"});
  auto r = propagate(g.view, {A("m.a", "scope"), Assignment(), A("m.b", "scope")});
  check(r[1], "m.b", "propagated");
  // ... unless that module is a leaf known to own parameters (by evidence
  // 'parameter' without a tree): a built-in's lowering is its parameter ops.
  auto p = propagate(g.view, {A("m.a", "parameter"), Assignment(), A("m.b", "parameter")});
  check(p[1], "m", "propagated");
}

TEST_CASE("a residual Add climbs out of a branch whose scope cannot see its other input") {
  D g;  // h.attn.c_proj output + residual r (read by h.ln_1 outside attn) -> h.ln_2
  g.node("emb", "Gather", {"x"}, {"r"})
      .node("ln1", "LayerNormalization", {"r"}, {"l"})
      .node("proj", "Gemm", {"l"}, {"p"})
      .node("add", "Add", {"p", "r"}, {"s"})
      .node("ln2", "LayerNormalization", {"s"}, {"y"});
  auto r = propagate(g.view, {A("wte", "parameter"), A("h.ln_1", "parameter"),
                              A("h.attn.c_proj", "parameter"), Assignment(), A("h.ln_2", "parameter")});
  check(r[3], "h", "propagated");
}

TEST_CASE("a residual Add whose next consumer is inside the branch stays in it") {
  D g;  // BERT's BertSelfOutput: LayerNorm(dense(x) + input_tensor)
  g.node("q", "MatMul", {"r"}, {"q"})
      .node("dense", "MatMul", {"q"}, {"d"})
      .node("add", "Add", {"d", "r"}, {"s"})
      .node("ln", "LayerNormalization", {"s"}, {"y"});
  auto r = propagate(g.view, {A("att.self.q", "parameter"), A("att.out.dense", "parameter"), Assignment(),
                              A("att.out.LayerNorm", "parameter")});
  check(r[2], "att.out", "propagated");
}

TEST_CASE("with a module tree, a parameter-free child whose class matches takes the op") {
  D g;  // block: conv -> bn -> relu(module) -> conv2; residual add -> relu again
  g.node("conv", "Conv", {"x"}, {"c"})
      .node("relu", "Relu", {"c"}, {"r"})
      .node("conv2", "Conv", {"r"}, {"c2"})
      .node("add", "Add", {"c2", "x"}, {"s"})
      .node("relu2", "Relu", {"s"}, {"y"});
  nlohmann::json modules =
      nlohmann::json::array({module("", "Net", 20), module("b", "Block", 20), module("b.conv", "Conv2d", 10),
                             module("b.relu", "ReLU", 0), module("b.conv2", "Conv2d", 10)});
  Assignments a = {A("b.conv", "parameter"), Assignment(), A("b.conv2", "parameter"), Assignment(),
                   Assignment()};
  auto with_tree = with_modules(g.view, a, modules);
  check(with_tree[1], "b.relu", "propagated");
  check(with_tree[3], "b", "propagated");  // residual Add: not the ReLU's
  check(with_tree[4], "b.relu", "propagated");
  auto without = propagate(g.view, a);  // no classes: the block itself
  check(without[1], "b", "propagated");
}

TEST_CASE("GELU pattern goes to the activation module, pure containers own nothing") {
  D g;  // seq.0 (Linear) -> 0.5*x*(1+erf(x/c)) -> seq.2 (Linear); act = seq.1
  g.node("fc", "MatMul", {"x"}, {"h"})
      .node("c1", "Constant", {}, {"k1"})
      .node("m", "Mul", {"h", "k1"}, {"m"})
      .node("c2", "Constant", {}, {"k2"})
      .node("dv", "Div", {"h", "k2"}, {"dv"})
      .node("erf", "Erf", {"dv"}, {"e"})
      .node("c3", "Constant", {}, {"k3"})
      .node("ad", "Add", {"e", "k3"}, {"ad"})
      .node("m2", "Mul", {"m", "ad"}, {"g"})
      .node("fc2", "MatMul", {"g"}, {"y"});
  nlohmann::json modules = nlohmann::json::array({module("", "Net", 20), module("seq", "Sequential", 20),
                                                  module("seq.0", "Linear", 10), module("seq.1", "GELU", 0),
                                                  module("seq.2", "Linear", 10)});
  Assignments a(g.view.nodes.size());
  a[0] = A("seq.0", "parameter");
  a[9] = A("seq.2", "parameter");
  auto r = with_modules(g.view, a, modules);
  for (size_t i : {1, 2, 3, 4, 5, 6, 7, 8}) {
    INFO("node " << i);
    check(r[i], "seq.1", "propagated");
  }
  auto bare = propagate(g.view, a);  // Sequential skipped (numeric children): the root
  check(bare[5], "", "propagated");
}

TEST_CASE("layout ops around a non-built-in leaf's parameter op stay in it") {
  D g;  // GPT-2 Conv1D: view -> addmm -> view; then a Split of the parent
  g.node("ln", "LayerNormalization", {"x"}, {"l"})
      .node("r1", "Reshape", {"l"}, {"r1"})
      .node("gemm", "Gemm", {"r1"}, {"g"})
      .node("r2", "Reshape", {"g"}, {"r2"})
      .node("split", "Split", {"r2"}, {"s"})
      .node("out", "Gemm", {"s"}, {"y"});
  nlohmann::json modules = nlohmann::json::array(
      {module("", "M", 30), module("ln", "LayerNorm", 10, "torch.nn.modules.normalization.LayerNorm"),
       module("attn", "Attention", 20), module("attn.c_attn", "Conv1D", 10, "transformers.Conv1D"),
       module("attn.c_proj", "Conv1D", 10, "transformers.Conv1D")});
  Assignments a(g.view.nodes.size());
  a[0] = A("ln", "parameter");
  a[2] = A("attn.c_attn", "parameter");
  a[5] = A("attn.c_proj", "parameter");
  auto r = with_modules(g.view, a, modules);
  check(r[1], "attn.c_attn", "propagated");
  check(r[3], "attn.c_attn", "propagated");
  check(r[4], "attn", "propagated");
}

TEST_CASE("side nodes feeding a built-in leaf go to its parent") {
  D g;  // position ids (constants only) -> Gather(position_embeddings)
  g.node("c", "Constant", {}, {"ids"})
      .node("u", "Unsqueeze", {"ids"}, {"u"})
      .node("emb", "Gather", {"w", "u"}, {"e"});
  g.view.initializers = {"w"};
  auto r = propagate(g.view, {Assignment(), Assignment(), A("emb.pos", "parameter")});
  check(r[0], "emb", "propagated");
  check(r[1], "emb", "propagated");
}

TEST_CASE("module classes map to ops") {
  CHECK(ops_of_module_class("ReLU") == std::vector<std::string>{"Relu"});
  CHECK(ops_of_module_class("ELU") == std::vector<std::string>{"Elu"});
  CHECK(ops_of_module_class("MaxPool2d") == std::vector<std::string>{"MaxPool"});
  CHECK(ops_of_module_class("BertLayer").empty());
}

// ---- forward outlines (docs/tagging.md §3, "outlines") --------------------
// A supplied hierarchy from `modelexport hierarchy` lists, per module, the
// ops its forward runs itself and the modules it calls, in program order.

namespace {

nlohmann::json outline(std::initializer_list<std::string> steps) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : steps) {
    if (s.rfind("call ", 0) == 0) out.push_back({{"call", s.substr(5)}});
    else out.push_back({{"op", s}});
  }
  return out;
}

nlohmann::json with_forward(nlohmann::json m, nlohmann::json forward) {
  m["forward"] = std::move(forward);
  return m;
}

// BERT in small: root = [call emb, mask ops, call enc, call pooler];
// enc (pass-through) = [call enc.layer.0, call enc.layer.1];
// each layer = [call attn, add, call ln]; pooler = [slice, call pooler.dense].
nlohmann::json bert_like_tree() {
  using J = nlohmann::json;
  J m = J::array(
      {with_forward(module("", "Model", 40),
                    outline({"call emb", "aten::slice", "aten::mul", "call enc", "call pooler"})),
       with_forward(module("emb", "Embedding", 10, "torch.nn.Embedding"), outline({"aten::embedding"})),
       with_forward(module("enc", "Encoder", 20), outline({"call enc.layer.0", "call enc.layer.1"})),
       module("enc.layer", "ModuleList", 20)});
  for (std::string i : {"0", "1"}) {
    std::string l = "enc.layer." + i;
    m.push_back(with_forward(module(l, "Layer", 10),
                             outline({"call " + l + ".attn", "aten::add", "call " + l + ".ln"})));
    m.push_back(with_forward(module(l + ".attn", "Linear", 5, "torch.nn.Linear"), outline({"aten::linear"})));
    m.push_back(
        with_forward(module(l + ".ln", "LayerNorm", 5, "torch.nn.LayerNorm"), outline({"aten::layer_norm"})));
  }
  m.push_back(with_forward(module("pooler", "Pooler", 5), outline({"aten::slice", "call pooler.dense"})));
  m.push_back(
      with_forward(module("pooler.dense", "Linear", 5, "torch.nn.Linear"), outline({"aten::linear"})));
  return m;
}

}  // namespace

TEST_CASE("outlines: an op after modules that have all returned is the next callee's first op") {
  D g;  // ... enc.layer.1.ln -> Slice (pooler's hidden[:, 0]) -> pooler.dense
  g.node("e", "Gather", {"x"}, {"h"})
      .node("a0", "MatMul", {"h"}, {"a0"})
      .node("n0", "LayerNormalization", {"a0"}, {"l0"})
      .node("a1", "MatMul", {"l0"}, {"a1"})
      .node("n1", "LayerNormalization", {"a1"}, {"l1"})
      .node("s", "Slice", {"l1"}, {"s"})
      .node("d", "Gemm", {"s"}, {"y"});
  Assignments a = {A("emb", "parameter"),
                   A("enc.layer.0.attn", "parameter"),
                   A("enc.layer.0.ln", "parameter"),
                   A("enc.layer.1.attn", "parameter"),
                   A("enc.layer.1.ln", "parameter"),
                   Assignment(),
                   A("pooler.dense", "parameter")};
  check(propagate(g.view, a, bert_like_tree())[5], "pooler", "propagated");
  // Without outlines the op stays after the module it follows.
  check(propagate(g.view, a)[5], "enc.layer.1", "propagated");
}

TEST_CASE("outlines: a value built from a graph input for several layers is the caller's") {
  D g;  // mask -> Slice -> Mul, read by an Add in each layer (enc passes through)
  g.node("e", "Gather", {"x"}, {"h"})
      .node("ms", "Slice", {"mask"}, {"ms"})
      .node("mm", "Mul", {"ms"}, {"m"})
      .node("a0", "MatMul", {"h"}, {"a0"})
      .node("add0", "Add", {"a0", "m"}, {"s0"})
      .node("n0", "LayerNormalization", {"s0"}, {"l0"})
      .node("a1", "MatMul", {"l0"}, {"a1"})
      .node("add1", "Add", {"a1", "m"}, {"s1"})
      .node("n1", "LayerNormalization", {"s1"}, {"y"});
  Assignments a = {A("emb", "parameter"),
                   Assignment(),
                   Assignment(),
                   A("enc.layer.0.attn", "parameter"),
                   Assignment(),
                   A("enc.layer.0.ln", "parameter"),
                   A("enc.layer.1.attn", "parameter"),
                   Assignment(),
                   A("enc.layer.1.ln", "parameter")};
  auto r = propagate(g.view, a, bert_like_tree());
  check(r[4], "enc.layer.0", "propagated");  // the layer's own add
  check(r[7], "enc.layer.1", "propagated");
  check(r[1], "", "propagated");  // enc only calls its layers: the root computed the mask
  check(r[2], "", "propagated");
  // Without outlines: the deepest common module that is not a container.
  check(propagate(g.view, a)[2], "enc", "propagated");
}

TEST_CASE("outlines: a parameter-free leaf lowered to several nodes keeps them all") {
  D g;  // fc -> GELU as Div, Erf, Add, Mul -> fc2, inside mlp = [call fc, call act, call fc2]
  g.node("fc", "MatMul", {"x"}, {"h"})
      .node("dv", "Div", {"h"}, {"dv"})
      .node("erf", "Erf", {"dv"}, {"e"})
      .node("ad", "Add", {"e"}, {"ad"})
      .node("m", "Mul", {"h", "ad"}, {"g"})
      .node("fc2", "MatMul", {"g"}, {"y"});
  nlohmann::json modules = nlohmann::json::array(
      {with_forward(module("", "Net", 20), outline({"call mlp"})),
       with_forward(module("mlp", "MLP", 20), outline({"call mlp.fc", "call mlp.act", "call mlp.fc2"})),
       with_forward(module("mlp.fc", "Linear", 10, "torch.nn.Linear"), outline({"aten::linear"})),
       with_forward(module("mlp.act", "GELU", 0, "torch.nn.GELU"), outline({"aten::gelu"})),
       with_forward(module("mlp.fc2", "Linear", 10, "torch.nn.Linear"), outline({"aten::linear"}))});
  Assignments a(g.view.nodes.size());
  a[0] = A("mlp.fc", "parameter");
  a[5] = A("mlp.fc2", "parameter");
  auto r = with_modules(g.view, a, modules);
  for (size_t i : {1, 2, 3, 4}) {
    INFO("node " << i);
    check(r[i], "mlp.act", "propagated");
  }
}

TEST_CASE("outlines: a module that does nothing (eval Dropout) takes no node") {
  D g;  // fc -> Add (the parent's own op) -> ln; drop = [] sits between fc and add
  g.node("fc", "MatMul", {"x"}, {"h"})
      .node("add", "Add", {"h", "x"}, {"s"})
      .node("ln", "LayerNormalization", {"s"}, {"y"});
  nlohmann::json modules = nlohmann::json::array(
      {with_forward(module("", "Net", 20), outline({"call out"})),
       with_forward(module("out", "Out", 20),
                    outline({"call out.fc", "call out.drop", "aten::add", "call out.ln"})),
       with_forward(module("out.fc", "Linear", 10, "torch.nn.Linear"), outline({"aten::linear"})),
       with_forward(module("out.drop", "Dropout", 0, "torch.nn.Dropout"), outline({})),
       with_forward(module("out.ln", "LayerNorm", 10, "torch.nn.LayerNorm"), outline({"aten::layer_norm"}))});
  Assignments a = {A("out.fc", "parameter"), Assignment(), A("out.ln", "parameter")};
  check(with_modules(g.view, a, modules)[1], "out", "propagated");
}

TEST_CASE("outlines: an RMSNorm after a residual add is the next module's, all of it") {
  // layer.0 = [call layer.0.attn, add]; layer.1 = [call layer.1.norm, call layer.1.fc];
  // norm (custom leaf with a weight) = [pow, mean, add, rsqrt, mul, mul]
  D g;
  g.node("a", "MatMul", {"x"}, {"a"})
      .node("res", "Add", {"a", "x"}, {"r"})
      .node("pow", "Pow", {"r"}, {"p"})
      .node("mean", "ReduceMean", {"p"}, {"m"})
      .node("eps", "Add", {"m"}, {"e"})
      .node("sq", "Sqrt", {"e"}, {"s"})
      .node("rc", "Reciprocal", {"s"}, {"rc"})
      .node("mul", "Mul", {"r", "rc"}, {"n"})
      .node("w", "Mul", {"n", "weight"}, {"nw"})
      .node("fc", "MatMul", {"nw"}, {"y"});
  g.view.initializers = {"weight"};
  nlohmann::json modules = nlohmann::json::array(
      {with_forward(module("", "Net", 30), outline({"call layer.0", "call layer.1"})),
       with_forward(module("layer.0", "Attn", 10), outline({"call layer.0.attn", "aten::add"})),
       with_forward(module("layer.0.attn", "Linear", 10, "torch.nn.Linear"), outline({"aten::linear"})),
       with_forward(module("layer.1", "FF", 20), outline({"call layer.1.norm", "call layer.1.fc"})),
       with_forward(
           module("layer.1.norm", "RMSNorm", 10, "x.RMSNorm"),
           outline({"aten::pow", "aten::mean", "aten::add", "aten::rsqrt", "aten::mul", "aten::mul"})),
       with_forward(module("layer.1.fc", "Linear", 10, "torch.nn.Linear"), outline({"aten::linear"}))});
  Assignments a(g.view.nodes.size());
  a[0] = A("layer.0.attn", "parameter");
  a[8] = A("layer.1.norm", "parameter");
  a[9] = A("layer.1.fc", "parameter");
  auto r = with_modules(g.view, a, modules);
  check(r[1], "layer.0", "propagated");  // the residual add: layer.0's own op
  for (size_t i : {2, 3, 4, 5, 6, 7}) {
    INFO("node " << i);
    check(r[i], "layer.1.norm", "propagated");
  }
  // Without outlines the norm's head stays after the add that produced its input.
  check(propagate(g.view, a)[2], "layer.0", "propagated");
}

TEST_CASE("outlines: a product of an activation and another branch is the caller's") {
  // mlp = [call gate, call act, call up, mul, call down]; act = SiLU (Sigmoid, Mul)
  D g;
  g.node("gate", "MatMul", {"x"}, {"g"})
      .node("sig", "Sigmoid", {"g"}, {"s"})
      .node("silu", "Mul", {"g", "s"}, {"a"})
      .node("up", "MatMul", {"x"}, {"u"})
      .node("prod", "Mul", {"a", "u"}, {"p"})
      .node("down", "MatMul", {"p"}, {"y"});
  nlohmann::json modules = nlohmann::json::array(
      {with_forward(module("", "Net", 30), outline({"call mlp"})),
       with_forward(module("mlp", "MLP", 30),
                    outline({"call mlp.gate", "call mlp.act", "call mlp.up", "aten::mul", "call mlp.down"})),
       with_forward(module("mlp.gate", "Linear", 10, "torch.nn.Linear"), outline({"aten::linear"})),
       with_forward(module("mlp.act", "SiLU", 0, "torch.nn.SiLU"), outline({"aten::silu"})),
       with_forward(module("mlp.up", "Linear", 10, "torch.nn.Linear"), outline({"aten::linear"})),
       with_forward(module("mlp.down", "Linear", 10, "torch.nn.Linear"), outline({"aten::linear"}))});
  Assignments a(g.view.nodes.size());
  a[0] = A("mlp.gate", "parameter");
  a[3] = A("mlp.up", "parameter");
  a[5] = A("mlp.down", "parameter");
  auto r = with_modules(g.view, a, modules);
  check(r[1], "mlp.act", "propagated");
  check(r[2], "mlp.act", "propagated");  // x * sigmoid(x): the activation's values and argument
  check(r[4], "mlp", "propagated");      // act(gate) * up: not the activation's
}

TEST_CASE("outlines: side values for every layer computed by a module the caller calls first") {
  // root = [call rot, call l.0, call l.1]; rot = [matmul, cos]; cos read by both layers
  D g;
  g.node("pos", "Constant", {}, {"pos"})
      .node("mm", "MatMul", {"inv_freq", "pos"}, {"f"})
      .node("cos", "Cos", {"f"}, {"c"})
      .node("a0", "MatMul", {"x"}, {"a0"})
      .node("m0", "Mul", {"a0", "c"}, {"r0"})
      .node("a1", "MatMul", {"r0"}, {"a1"})
      .node("m1", "Mul", {"a1", "c"}, {"y"});
  g.view.initializers = {"inv_freq"};
  nlohmann::json modules = nlohmann::json::array(
      {with_forward(module("", "Net", 20), outline({"aten::arange", "call rot", "call l.0", "call l.1"})),
       with_forward(module("rot", "Rotary", 0, "x.Rotary"), outline({"aten::matmul", "aten::cos"})),
       with_forward(module("l", "ModuleList", 20), outline({})),
       with_forward(module("l.0", "Layer", 10), outline({"call l.0.q", "aten::mul"})),
       with_forward(module("l.0.q", "Linear", 10, "torch.nn.Linear"), outline({"aten::linear"})),
       with_forward(module("l.1", "Layer", 10), outline({"call l.1.q", "aten::mul"})),
       with_forward(module("l.1.q", "Linear", 10, "torch.nn.Linear"), outline({"aten::linear"}))});
  modules[2].erase("forward");  // a ModuleList has no forward
  Assignments a(g.view.nodes.size());
  a[3] = A("l.0.q", "parameter");
  a[5] = A("l.1.q", "parameter");
  auto r = with_modules(g.view, a, modules);
  check(r[2], "rot", "propagated");  // Cos: the root's own code has none, `rot` has
  check(r[1], "rot", "propagated");  // MatMul: likewise
  check(r[4], "l.0", "propagated");
  // Without outlines the layers' common caller.
  check(propagate(g.view, a)[2], "", "propagated");
}

TEST_CASE("outlines: a value read by a callee's first call was computed by the caller before it") {
  // BART in small: root = [eq, masked_fill, call enc, call dec] (shift_tokens_right);
  // enc = [view, call enc.emb, ...]; dec = [size, call dec.emb, ...].
  // ids -> Equal -> Where -> Gather(dec.emb) ; ids -> Reshape -> Gather(enc.emb)
  D g;
  g.node("eq", "Equal", {"ids", "pad"}, {"e"})
      .node("wh", "Where", {"e", "pad", "ids"}, {"dids"})
      .node("demb", "Gather", {"dw", "dids"}, {"dh"})
      .node("rs", "Reshape", {"ids", "shape"}, {"ids2"})
      .node("eemb", "Gather", {"ew", "ids2"}, {"eh"});
  g.view.initializers = {"pad", "shape", "dw", "ew"};
  nlohmann::json modules = nlohmann::json::array(
      {with_forward(module("", "Model", 20),
                    outline({"aten::eq", "aten::masked_fill", "call enc", "call dec"})),
       with_forward(module("enc", "Encoder", 10, "x.Encoder"),
                    outline({"aten::size", "aten::view", "call enc.emb", "aten::add"})),
       with_forward(module("enc.emb", "ScaledEmbedding", 10, "x.ScaledEmbedding"),
                    outline({"aten::embedding", "aten::mul"})),
       with_forward(module("dec", "Decoder", 10, "x.Decoder"),
                    outline({"aten::size", "call dec.emb", "aten::masked_fill", "aten::add"})),
       with_forward(module("dec.emb", "Embedding", 10, "torch.nn.Embedding"), outline({"aten::embedding"}))});
  Assignments a(g.view.nodes.size());
  a[2] = A("dec.emb", "parameter");
  a[4] = A("enc.emb", "parameter");
  auto r = with_modules(g.view, a, modules);
  // The decoder runs only `size` before it calls its embedding: the Where
  // (and the Equal feeding it) ran in the root before it called `dec`,
  // although `dec` has a masked_fill of its own later on.
  check(r[1], "", "propagated");
  check(r[0], "", "propagated");
  // The embedding's own code has no Reshape; the encoder views before the call.
  check(r[3], "enc", "propagated");
  // Without outlines the consumers decide.
  check(propagate(g.view, a)[1], "dec", "propagated");
}

TEST_CASE("outlines: an own op right after a call stays, even with an input from outside") {
  // ViT in small: layer = [call attn, add, call ln, call out];
  // out (ViTOutput) = [call out.dense, call out.drop, add]: its residual add
  // reads the layer's first sum, which the layer's LayerNorm read before.
  D g;
  g.node("a", "MatMul", {"x"}, {"a"})
      .node("r1", "Add", {"a", "x"}, {"r1"})
      .node("ln", "LayerNormalization", {"r1"}, {"l"})
      .node("d", "MatMul", {"l"}, {"d"})
      .node("r2", "Add", {"d", "r1"}, {"r2"})
      .node("fin", "LayerNormalization", {"r2"}, {"y"});
  nlohmann::json modules = nlohmann::json::array(
      {with_forward(module("", "Net", 20), outline({"call layer", "call norm"})),
       with_forward(module("layer", "Layer", 15),
                    outline({"call layer.attn", "aten::add", "call layer.ln", "call layer.out"})),
       with_forward(module("layer.attn", "Linear", 5, "torch.nn.Linear"), outline({"aten::linear"})),
       with_forward(module("layer.ln", "LayerNorm", 5, "torch.nn.LayerNorm"), outline({"aten::layer_norm"})),
       with_forward(module("layer.out", "Output", 5, "x.Output"),
                    outline({"call layer.out.dense", "call layer.out.drop", "aten::add"})),
       with_forward(module("layer.out.dense", "Linear", 5, "torch.nn.Linear"), outline({"aten::linear"})),
       with_forward(module("layer.out.drop", "Dropout", 0, "torch.nn.Dropout"), outline({})),
       with_forward(module("norm", "LayerNorm", 5, "torch.nn.LayerNorm"), outline({"aten::layer_norm"}))});
  Assignments a = {A("layer.attn", "parameter"),      Assignment(), A("layer.ln", "parameter"),
                   A("layer.out.dense", "parameter"), Assignment(), A("norm", "parameter")};
  auto r = with_modules(g.view, a, modules);
  check(r[1], "layer", "propagated");
  check(r[4], "layer.out", "propagated");
  // Without outlines the visibility rule moves it to the layer.
  check(propagate(g.view, a)[4], "layer", "propagated");
}

TEST_CASE("outlines: a BatchNorm folded into its Conv leaves no trace; the ReLU is the next one") {
  // Sequential [conv0, bn1, relu2, conv3, bn4, relu5]; both BatchNorms were
  // folded into the Convs before them, so the file has Conv, Relu, Conv, Relu.
  D g;
  g.node("c0", "Conv", {"x"}, {"a"})
      .node("r0", "Relu", {"a"}, {"b"})
      .node("c3", "Conv", {"b"}, {"c"})
      .node("r1", "Relu", {"c"}, {"y"});
  nlohmann::json modules = nlohmann::json::array(
      {with_forward(module("", "Net", 20), outline({"call layers"})),
       with_forward(module("layers", "Sequential", 20, "torch.nn.modules.container.Sequential"),
                    outline({"call layers.0", "call layers.1", "call layers.2", "call layers.3",
                             "call layers.4", "call layers.5"}))});
  for (std::string i : {"0", "3"})
    modules.push_back(
        with_forward(module("layers." + i, "Conv2d", 5, "torch.nn.Conv2d"), outline({"aten::_convolution"})));
  for (std::string i : {"1", "4"})
    modules.push_back(with_forward(module("layers." + i, "BatchNorm2d", 5, "torch.nn.BatchNorm2d"),
                                   outline({"aten::batch_norm"})));
  for (std::string i : {"2", "5"})
    modules.push_back(
        with_forward(module("layers." + i, "ReLU", 0, "torch.nn.ReLU"), outline({"aten::relu"})));
  Assignments a = {A("layers.0", "parameter"), Assignment(), A("layers.3", "parameter"), Assignment()};
  auto r = with_modules(g.view, a, modules);
  check(r[1], "layers.2", "propagated");
  check(r[3], "layers.5", "propagated");
  // A BatchNorm that is in the file (a node placed in it) is a step: the
  // ReLU after the Conv would then not be the next module's.
  a[3] = A("layers.4", "parameter");
  g.view.nodes[3].op_type = "BatchNormalization";
  check(with_modules(g.view, a, modules)[1], "layers.2", "propagated");
}

TEST_CASE("outlines: an op the module runs only before the producer starts the next module") {
  // ShuffleNet in small: each block = [chunk, call branch, cat, view,
  // transpose, view]; the Slice after block 0's last view is block 1's chunk.
  D g;
  g.node("s0", "Slice", {"x"}, {"h0"})
      .node("c0", "Conv", {"h0"}, {"b0"})
      .node("k0", "Concat", {"h0", "b0"}, {"k0"})
      .node("v0", "Reshape", {"k0"}, {"v0"})
      .node("t0", "Transpose", {"v0"}, {"t0"})
      .node("w0", "Reshape", {"t0"}, {"w0"})
      .node("s1", "Slice", {"w0"}, {"h1"})
      .node("c1", "Conv", {"h1"}, {"y"});
  nlohmann::json modules = nlohmann::json::array(
      {with_forward(module("", "Net", 20), outline({"call s"})),
       with_forward(module("s", "Sequential", 20, "torch.nn.modules.container.Sequential"),
                    outline({"call s.0", "call s.1"}))});
  for (std::string i : {"0", "1"}) {
    modules.push_back(with_forward(module("s." + i, "Block", 10, "x.Block"),
                                   outline({"aten::slice", "call s." + i + ".branch", "aten::cat",
                                            "aten::view", "aten::transpose", "aten::view"})));
    modules.push_back(with_forward(module("s." + i + ".branch", "Conv2d", 10, "torch.nn.Conv2d"),
                                   outline({"aten::_convolution"})));
  }
  Assignments a(g.view.nodes.size());
  a[1] = A("s.0.branch", "parameter");
  a[7] = A("s.1.branch", "parameter");
  auto r = with_modules(g.view, a, modules);
  check(r[5], "s.0", "propagated");
  check(r[6], "s.1", "propagated");
  // Without outlines it stays after the op it follows.
  check(propagate(g.view, a)[6], "s.0", "propagated");
}

TEST_CASE("outlines: a MaxPool after a MaxPool module heads the branch the value flows into") {
  // GoogLeNet in small: root = [call pool, call inc]; inc = [call inc.b1,
  // call inc.b4, cat]; b1 = [call inc.b1.conv]; b4 = Sequential [MaxPool2d,
  // Conv]. The pooled value is read by b1's Conv and b4's MaxPool.
  D g;
  g.node("stem", "Conv", {"x"}, {"s"})
      .node("p", "MaxPool", {"s"}, {"p"})
      .node("c1", "Conv", {"p"}, {"c1"})
      .node("m4", "MaxPool", {"p"}, {"m4"})
      .node("c4", "Conv", {"m4"}, {"c4"})
      .node("cat", "Concat", {"c1", "c4"}, {"y"});
  nlohmann::json modules = nlohmann::json::array(
      {with_forward(module("", "Net", 30), outline({"call stem", "call pool", "call inc"})),
       with_forward(module("stem", "Conv2d", 10, "torch.nn.Conv2d"), outline({"aten::_convolution"})),
       with_forward(module("pool", "MaxPool2d", 0, "torch.nn.MaxPool2d"), outline({"aten::max_pool2d"})),
       with_forward(module("inc", "Inception", 20, "x.Inception"),
                    outline({"call inc.b1", "call inc.b4", "aten::cat"})),
       with_forward(module("inc.b1", "Sequential", 10, "torch.nn.modules.container.Sequential"),
                    outline({"call inc.b1.conv"})),
       with_forward(module("inc.b1.conv", "Conv2d", 10, "torch.nn.Conv2d"), outline({"aten::_convolution"})),
       with_forward(module("inc.b4", "Sequential", 10, "torch.nn.modules.container.Sequential"),
                    outline({"call inc.b4.0", "call inc.b4.1"})),
       with_forward(module("inc.b4.0", "MaxPool2d", 0, "torch.nn.MaxPool2d"), outline({"aten::max_pool2d"})),
       with_forward(module("inc.b4.1", "Conv2d", 10, "torch.nn.Conv2d"), outline({"aten::_convolution"}))});
  Assignments a(g.view.nodes.size());
  a[0] = A("stem", "parameter");
  a[2] = A("inc.b1.conv", "parameter");
  a[4] = A("inc.b4.1", "parameter");
  auto r = with_modules(g.view, a, modules);
  check(r[1], "pool", "propagated");
  // A MaxPool2d has nothing after its max_pool2d; `inc` starts with b1's
  // Conv, but the value flows into b4, whose first op is a MaxPool. b4.0
  // cannot see the pooled value read by b1's Conv: the outline says it is
  // its argument.
  check(r[3], "inc.b4.0", "propagated");
  check(r[5], "inc", "propagated");
  // Without outlines nothing says which branch: the root.
  check(propagate(g.view, a)[3], "", "propagated");
}
