#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/graph_passes.hpp"
#include "mx/aten_onnx/model_assembly.hpp"
#include "mx/aten_onnx/patterns.hpp"
#include "test_support.hpp"

using namespace mx::aten_onnx;

namespace {

std::vector<float> iota_floats(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

void add_weight(TestEmitter& e, WeightMap& w, const std::string& name, const std::vector<int64_t>& dims,
                const std::vector<float>& bytes) {
  auto* t = e.graph.add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t->add_dims(d);
  w[name] = WeightBytes{reinterpret_cast<const char*>(bytes.data()), bytes.size() * sizeof(float)};
}

void mark_output(TestEmitter& e, const std::string& v) {
  e.graph.add_output()->set_name(v);
}

int count_op(const onnx::GraphProto& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.node()) n += node.op_type() == op;
  return n;
}

template <typename T>
std::vector<T> values_of(const std::string& raw) {
  std::vector<T> v(raw.size() / sizeof(T));
  std::memcpy(v.data(), raw.data(), raw.size());
  return v;
}

std::vector<float> floats_of(const std::string& raw) {
  return values_of<float>(raw);
}

std::vector<int64_t> constant_int64s(const onnx::NodeProto& constant) {
  REQUIRE(constant.op_type() == "Constant");
  return values_of<int64_t>(constant.attribute(0).t().raw_data());
}

}  // namespace

TEST_CASE("a Linear weight read through Transpose is stored transposed under its own name") {
  TestEmitter e;
  WeightMap w;
  e.input("x", onnx::TensorProto::FLOAT, {2, 3, 4});
  const auto bytes = iota_floats(5 * 4);
  add_weight(e, w, "fc.weight", {5, 4}, bytes);
  e.module = "fc";
  mark_output(e, emit_linear(e, "x", 3, "fc.weight", ""));
  REQUIRE(count_op(e.graph, "Transpose") == 1);

  const auto report = lean_graph(e.graph, w, 17);
  CHECK(count_op(e.graph, "Transpose") == 0);
  CHECK(e.graph.initializer(0).name() == "fc.weight");
  CHECK(std::vector<int64_t>(e.graph.initializer(0).dims().begin(), e.graph.initializer(0).dims().end()) ==
        std::vector<int64_t>{4, 5});
  CHECK(e.graph.node(0).input(1) == "fc.weight");
  CHECK(report.stored_permuted.at("fc.weight") == std::vector<int64_t>{1, 0});
  const auto summary = pass_summary(e.records, report);
  CHECK(summary["folded_nodes"]["fc"] == 1);
  CHECK(summary["stored_permuted"]["fc.weight"] == nlohmann::json({1, 0}));

  inline_weights(e.graph, w);
  const auto out = floats_of(e.graph.initializer(0).raw_data());
  REQUIRE(out.size() == 20);
  for (int i = 0; i < 4; ++i)
    for (int o = 0; o < 5; ++o)
      CHECK(out[static_cast<size_t>(i * 5 + o)] == bytes[static_cast<size_t>(o * 4 + i)]);
}

TEST_CASE("a weight read through Transposes of different perms keeps its layout") {
  TestEmitter e;
  WeightMap w;
  const auto bytes = iota_floats(2 * 3 * 4);
  add_weight(e, w, "w", {2, 3, 4}, bytes);
  const auto a = e.emit1("Transpose", {"w"}, {attr("perm", std::vector<int64_t>{0, 2, 1})});
  const auto b = e.emit1("Transpose", {"w"}, {attr("perm", std::vector<int64_t>{2, 1, 0})});
  mark_output(e, e.emit1("Add", {e.emit1("ReduceSum", {a}), e.emit1("ReduceSum", {b})}));
  const auto report = lean_graph(e.graph, w, 17);
  CHECK(report.stored_permuted.empty());
  CHECK(report.permuted_copies.empty());
  CHECK(count_op(e.graph, "Transpose") == 2);
  CHECK_FALSE(w.at("w").permuted.has_value());
}

TEST_CASE("a weight read as it is and through Transpose gets a permuted copy") {
  TestEmitter e;
  WeightMap w;
  e.input("ids", onnx::TensorProto::INT64, {2, 3});
  const auto bytes = iota_floats(6 * 4);
  add_weight(e, w, "emb.weight", {6, 4}, bytes);
  e.module = "emb";
  const auto h = e.emit1("Gather", {"emb.weight", "ids"});
  e.module = "head";
  const auto logits = emit_linear(e, h, 3, "emb.weight", "");
  mark_output(e, logits);
  const auto report = lean_graph(e.graph, w, 17);
  CHECK(count_op(e.graph, "Transpose") == 0);
  CHECK(report.stored_permuted.empty());
  REQUIRE(report.permuted_copies.size() == 1);
  const auto& [copy, spec] = *report.permuted_copies.begin();
  CHECK(spec.of == "emb.weight");
  CHECK(spec.perm == std::vector<int64_t>{1, 0});
  CHECK_FALSE(w.at("emb.weight").permuted.has_value());
  const auto summary = pass_summary(e.records, report);
  CHECK(summary["permuted_copies"][copy]["of"] == "emb.weight");
  CHECK(summary["folded_nodes"]["head"] == 1);

  inline_weights(e.graph, w);
  std::map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : e.graph.initializer()) inits[t.name()] = &t;
  REQUIRE(inits.count(copy));
  CHECK(std::vector<int64_t>(inits[copy]->dims().begin(), inits[copy]->dims().end()) ==
        std::vector<int64_t>{4, 6});
  CHECK(floats_of(inits["emb.weight"]->raw_data()) == bytes);
  const auto out = floats_of(inits[copy]->raw_data());
  REQUIRE(out.size() == 24);
  for (int i = 0; i < 4; ++i)
    for (int o = 0; o < 6; ++o)
      CHECK(out[static_cast<size_t>(i * 6 + o)] == bytes[static_cast<size_t>(o * 4 + i)]);
  e.graph.clear_output();
  CHECK(e.check(logits) == std::vector<int64_t>{2, 3, 6});
}

TEST_CASE("a permuted weight streams chunk by chunk, any rank") {
  SUBCASE("rank 2 over several blocks, into external data") {
    TestEmitter e;
    WeightMap w;
    const int64_t rows = 2100, cols = 1100;  // 9.2 MB: more than one block of source rows
    const auto bytes = iota_floats(static_cast<size_t>(rows * cols));
    add_weight(e, w, "big", {rows, cols}, bytes);
    e.input("x", onnx::TensorProto::FLOAT, {2, 3, cols});
    mark_output(e, emit_linear(e, "x", 3, "big", ""));
    lean_graph(e.graph, w, 17);
    const std::string path = "test_graph_passes_big.data";
    write_external_weights(e.graph, w, path, path);
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    std::remove(path.c_str());
    const auto out = floats_of(ss.str());
    REQUIRE(out.size() == bytes.size());
    bool same = true;
    for (int64_t c = 0; c < cols; ++c)
      for (int64_t r = 0; r < rows; ++r)
        same &= out[static_cast<size_t>(c * rows + r)] == bytes[static_cast<size_t>(r * cols + c)];
    CHECK(same);
  }
  SUBCASE("rank 3") {
    const auto bytes = iota_floats(2 * 3 * 4);
    WeightBytes wb{reinterpret_cast<const char*>(bytes.data()), bytes.size() * 4};
    wb.permuted = Permutation{{2, 0, 1}, {2, 3, 4}, 4};
    std::string raw;
    raw.resize(wb.size);
    for_each_output_piece(wb, [&](uint64_t at, const char* d, uint64_t n) { raw.replace(at, n, d, n); });
    const auto out = floats_of(raw);
    REQUIRE(out.size() == 24);
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
          CHECK(out[static_cast<size_t>((k * 2 + i) * 3 + j)] ==
                bytes[static_cast<size_t>((i * 3 + j) * 4 + k)]);
  }
}

TEST_CASE("a transposed weight of any element size, in pieces at their offsets") {
  for (size_t es : {1, 2, 3, 4, 8, 16}) {
    CAPTURE(es);
    const uint64_t rows = 37, cols = 70;  // not multiples of the tile
    std::string src(rows * cols * es, '\0');
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 7 + i / 251);
    WeightBytes wb{src.data(), src.size()};
    wb.permuted = Permutation{{1, 0}, {static_cast<int64_t>(rows), static_cast<int64_t>(cols)}, es};
    std::string out(src.size(), '\0');
    std::vector<bool> seen(src.size(), false);
    for_each_output_piece(wb, [&](uint64_t at, const char* d, uint64_t n) {
      REQUIRE(at + n <= out.size());
      std::memcpy(&out[at], d, n);
      for (uint64_t i = at; i < at + n; ++i) seen[i] = true;
    });
    CHECK(std::find(seen.begin(), seen.end(), false) == seen.end());
    bool same = true;
    for (uint64_t c = 0; c < cols; ++c)
      for (uint64_t r = 0; r < rows; ++r)
        same &= out.compare((c * rows + r) * es, es, src, (r * cols + c) * es, es) == 0;
    CHECK(same);
  }
}

TEST_CASE("static shape arithmetic folds into one constant, dynamic reads are shared") {
  TestEmitter e;
  WeightMap w;
  e.input("s", onnx::TensorProto::FLOAT, {2, 6});
  auto* dyn = e.graph.add_input();  // x: [batch, 6], batch dynamic
  dyn->set_name("x");
  auto* tt = dyn->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_param("batch");
  tt->mutable_shape()->add_dim()->set_dim_value(6);
  e.module = "a";
  // static: Reshape(s, Concat(Unsqueeze(Gather(Shape(s), 0)), [-1]))
  const auto d0 = e.unsqueeze(e.dim_size("s", 0), {0});
  const auto shape = e.emit1("Concat", {d0, e.ci64({3, -1})}, {attr("axis", int64_t{0})});
  const auto r = e.emit1("Reshape", {"s", shape});
  // dynamic: two lowerings read batch of x (in two modules)
  const auto b1 = e.unsqueeze(e.dim_size("x", 0), {0});
  e.module = "b";
  const auto b2 = e.unsqueeze(e.dim_size("x", 0), {0});
  const auto shape2 = e.emit1("Concat", {b1, b2}, {attr("axis", int64_t{0})});
  mark_output(e, r);
  mark_output(e, shape2);
  const int before = e.graph.node_size();

  const auto report = lean_graph(e.graph, w, 17);
  // the batch read is one Shape(x, start=0, end=1)
  CHECK(count_op(e.graph, "Shape") == 1);
  CHECK(count_op(e.graph, "Gather") == 0);
  CHECK(count_op(e.graph, "Unsqueeze") == 0);
  CHECK(count_op(e.graph, "Concat") == 1);
  // Reshape's shape is one constant [2, 3, -1]
  onnx::NodeProto reshape;
  for (const auto& n : e.graph.node())
    if (n.op_type() == "Reshape") reshape = n;
  REQUIRE(reshape.op_type() == "Reshape");
  bool found = false;
  for (const auto& t : e.graph.initializer())  // Constants end as initializers
    if (t.name() == reshape.input(1)) {
      found = true;
      const auto& raw = t.raw_data();
      std::vector<int64_t> v(raw.size() / 8);
      std::memcpy(v.data(), raw.data(), raw.size());
      CHECK(v == std::vector<int64_t>{2, 3, -1});
    }
  CHECK(found);
  CHECK(count_op(e.graph, "Constant") == 0);
  CHECK(static_cast<int>(report.removed.size()) == before - e.graph.node_size());
  const auto summary = pass_summary(e.records, report);
  // b's Shape, Gather, Unsqueeze and its two constants duplicated a's
  CHECK(summary["folded_nodes"]["b"] == 5);
  e.graph.clear_output();  // check() types its own output
  e.check(r);
}

TEST_CASE("a view with one dynamic dim reshapes to a constant shape with -1") {
  TestEmitter e;
  WeightMap w;
  auto* dyn = e.graph.add_input();  // x: [batch, seq, 8], batch and seq dynamic
  dyn->set_name("x");
  auto* tt = dyn->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_param("batch");
  tt->mutable_shape()->add_dim()->set_dim_param("seq");
  tt->mutable_shape()->add_dim()->set_dim_value(8);
  e.module = "m";
  // view(x, batch * seq, 2, 4): Concat(Unsqueeze(Mul(batch, seq)), [2, 4])
  const auto bs = e.emit1("Mul", {e.dim_size("x", 0), e.dim_size("x", 1)});
  const auto flat = e.emit1("Concat", {e.unsqueeze(bs, {0}), e.ci64({2, 4})}, {attr("axis", int64_t{0})});
  const auto r = e.emit1("Reshape", {"x", flat});
  // view(x, batch, seq * 8): two dynamic dims, left as they are
  const auto s8 = e.emit1("Mul", {e.dim_size("x", 1), e.ci64s(8)});
  const auto two = e.emit1("Concat", {e.unsqueeze(e.dim_size("x", 0), {0}), e.unsqueeze(s8, {0})},
                           {attr("axis", int64_t{0})});
  const auto r2 = e.emit1("Reshape", {"x", two});
  mark_output(e, r);
  mark_output(e, r2);

  const auto report = lean_graph(e.graph, w, 17);
  std::vector<onnx::NodeProto> reshapes;
  for (const auto& n : e.graph.node())
    if (n.op_type() == "Reshape") reshapes.push_back(n);
  REQUIRE(reshapes.size() == 2);
  std::vector<int64_t> shape;
  for (const auto& t : e.graph.initializer())
    if (t.name() == reshapes[0].input(1)) {
      shape.resize(t.raw_data().size() / 8);
      std::memcpy(shape.data(), t.raw_data().data(), t.raw_data().size());
    }
  CHECK(shape == std::vector<int64_t>{-1, 2, 4});
  CHECK(count_op(e.graph, "Concat") == 1);  // the second view's
  CHECK(count_op(e.graph, "Mul") == 1);
  CHECK(pass_summary(e.records, report)["folded_nodes"]["m"].get<int>() > 0);
  e.graph.clear_output();
  e.check(r);
}

TEST_CASE("with the program's dims, a view copies the input's dynamic dims (0) and infers one (-1)") {
  TestEmitter e;
  WeightMap w;
  auto* dyn = e.graph.add_input();  // x: [batch, seq, 8]
  dyn->set_name("x");
  auto* tt = dyn->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_param("batch");
  tt->mutable_shape()->add_dim()->set_dim_param("seq");
  tt->mutable_shape()->add_dim()->set_dim_value(8);
  e.module = "m";
  auto dyn_shape = [&](std::vector<std::string> parts) {
    return e.emit1("Concat", parts, {attr("axis", int64_t{0})});
  };
  // view(x, batch, seq, 2, 4) and view(x, seq, batch, 8): the second's
  // dims are not the input's at their positions (one could be -1, not two)
  const auto b = e.unsqueeze(e.dim_size("x", 0), {0}), s = e.unsqueeze(e.dim_size("x", 1), {0});
  const auto heads = e.emit1("Reshape", {"x", dyn_shape({b, s, e.ci64({2, 4})})});
  const auto swapped = e.emit1("Reshape", {"x", dyn_shape({s, b, e.ci64({8})})});
  mark_output(e, heads);
  mark_output(e, swapped);
  SymbolicShapes shapes;
  auto dim = [](const char* sym) { return SymbolicDim{std::nullopt, sym}; };
  auto size = [](int64_t n) { return SymbolicDim{n, ""}; };
  shapes["x"] = {dim("batch"), dim("seq"), size(8)};
  shapes[heads] = {dim("batch"), dim("seq"), size(2), size(4)};
  shapes[swapped] = {dim("seq"), dim("batch"), size(8)};

  lean_graph(e.graph, w, 17, shapes);
  std::map<std::string, std::vector<int64_t>> constant_shape;
  for (const auto& n : e.graph.node()) {
    if (n.op_type() != "Reshape") continue;
    for (const auto& t : e.graph.initializer())
      if (t.name() == n.input(1)) {
        std::vector<int64_t> v(t.raw_data().size() / 8);
        std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
        constant_shape[n.output(0)] = v;
      }
  }
  CHECK(constant_shape[heads] == std::vector<int64_t>{0, 0, 2, 4});
  CHECK(constant_shape.count(swapped) == 0);  // still computed
  CHECK(count_op(e.graph, "Concat") == 1);
  e.graph.clear_output();
  e.check(heads);
}

TEST_CASE("an Unsqueeze of an Unsqueeze is one Unsqueeze") {
  TestEmitter e;
  WeightMap w;
  e.input("x", onnx::TensorProto::FLOAT, {3, 4});
  e.module = "m";
  const auto y = e.unsqueeze(e.unsqueeze(e.emit1("Relu", {"x"}), {0}), {2});
  mark_output(e, y);
  lean_graph(e.graph, w, 17);
  CHECK(count_op(e.graph, "Unsqueeze") == 1);
  e.graph.clear_output();
  CHECK(e.check(y) == std::vector<int64_t>{1, 3, 1, 4});
}

TEST_CASE("nodes that pass their input through are dropped, their readers read the input") {
  TestEmitter e;
  WeightMap w;
  e.input("x", onnx::TensorProto::FLOAT, {2, 3, 4});
  e.module = "m";
  const auto f = onnx::TensorProto::FLOAT;
  auto a = e.emit1("Relu", {"x"});
  a = e.emit1("Add", {a, e.cscalar(0.0, f)});
  a = e.emit1("Mul", {e.cscalar(1.0, f), a});
  a = e.emit1("Div", {a, e.cscalar(1.0, f)});
  a = e.emit1("Sub", {a, e.cscalar(-0.0, f)});
  a = e.emit1("Slice", {a, e.ci64({0, 0}), e.ci64({INT64_MAX, INT64_MAX}), e.ci64({0, 2}), e.ci64({1, 1})});
  a = e.emit1("Expand", {a, e.ci64({})});
  a = e.emit1("Identity", {a});
  // kept: a scale of 2, a Slice from 1, an Add of a non-scalar zero (it may broadcast)
  auto kept = e.emit1("Mul", {a, e.cscalar(2.0, f)});
  kept = e.emit1("Slice", {kept, e.ci64({1}), e.ci64({INT64_MAX}), e.ci64({0})});
  kept = e.emit1("Add", {kept, e.constant(filled_tensor(f, {1, 1, 1, 1}, 0.0))});
  mark_output(e, kept);
  const auto report = lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"Relu", "Mul", "Slice", "Add"});
  CHECK(e.graph.node(1).input(0) == e.graph.node(0).output(0));
  CHECK(pass_summary(e.records, report)["folded_nodes"]["m"].get<int>() >= 7);
  e.graph.clear_output();
  CHECK(e.check(kept) == std::vector<int64_t>{1, 1, 3, 4});
}

TEST_CASE("a Transpose of a Transpose reads the source with the composed perm, or not at all") {
  TestEmitter e;
  WeightMap w;
  e.input("x", onnx::TensorProto::FLOAT, {2, 3, 4, 5});
  e.module = "m";
  const auto heads =
      e.emit1("Transpose", {e.emit1("Relu", {"x"})}, {attr("perm", std::vector<int64_t>{0, 2, 1, 3})});
  const auto kt = e.emit1("Transpose", {heads}, {attr("perm", std::vector<int64_t>{0, 1, 3, 2})});
  const auto back = e.emit1("Transpose", {heads}, {attr("perm", std::vector<int64_t>{0, 2, 1, 3})});
  const auto y = e.emit1("Add", {e.emit1("ReduceSum", {kt}), e.emit1("ReduceSum", {back})});
  mark_output(e, y);
  lean_graph(e.graph, w, 17);
  CHECK(count_op(e.graph, "Transpose") == 1);
  for (const auto& n : e.graph.node())
    if (n.op_type() == "Transpose") {
      CHECK(n.output(0) == kt);  // the rewritten node keeps its name and output
      CHECK(std::vector<int64_t>(n.attribute(0).ints().begin(), n.attribute(0).ints().end()) ==
            std::vector<int64_t>{0, 2, 3, 1});
      CHECK(n.input(0) == e.graph.node(0).output(0));
    }
  e.graph.clear_output();
  e.check(y);
}

TEST_CASE("a Range of constants folds") {
  TestEmitter e;
  WeightMap w;
  e.module = "m";
  const auto r = e.emit1("Range", {e.ci64s(2), e.ci64s(9), e.ci64s(3)});
  const auto down = e.emit1("Range", {e.ci64s(5), e.ci64s(0), e.ci64s(-2)});
  const auto y = e.emit1("Concat", {r, down}, {attr("axis", int64_t{0})});
  mark_output(e, y);
  lean_graph(e.graph, w, 17);
  CHECK(count_op(e.graph, "Range") == 0);
  REQUIRE(e.graph.node_size() == 1);  // a graph output stays a Constant node
  const auto value = constant_int64s(e.graph.node(0));
  CHECK(value == std::vector<int64_t>{2, 5, 8, 5, 3, 1});
}

TEST_CASE("an eval BatchNormalization after a Conv folds into its weight and bias") {
  for (bool conv_bias : {false, true}) {
    CAPTURE(conv_bias);
    TestEmitter e;
    WeightMap w;
    e.input("x", onnx::TensorProto::FLOAT, {1, 2, 4, 4});
    const auto weight = iota_floats(3 * 2 * 1 * 1);  // [3, 2, 1, 1]
    const std::vector<float> b = {0.5f, -1.0f, 2.0f}, gamma = {1.0f, 2.0f, 0.5f}, beta = {0.1f, 0.2f, 0.3f},
                             mean = {1.0f, -1.0f, 0.0f}, var = {4.0f, 1.0f, 0.25f};
    add_weight(e, w, "conv.weight", {3, 2, 1, 1}, weight);
    if (conv_bias) add_weight(e, w, "conv.bias", {3}, b);
    add_weight(e, w, "bn.weight", {3}, gamma);
    add_weight(e, w, "bn.bias", {3}, beta);
    add_weight(e, w, "bn.running_mean", {3}, mean);
    add_weight(e, w, "bn.running_var", {3}, var);
    e.module = "conv";
    std::vector<std::string> conv_in = {"x", "conv.weight"};
    if (conv_bias) conv_in.push_back("conv.bias");
    const auto c = e.emit1("Conv", conv_in);
    e.module = "bn";
    const auto y =
        e.emit1("BatchNormalization", {c, "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"},
                {attr("epsilon", 0.0f)});
    mark_output(e, e.emit1("Relu", {y}));
    const auto report = lean_graph(e.graph, w, 17);
    CHECK(e.ops() == std::vector<std::string>{"Conv", "Relu"});
    const std::string bias_name = conv_bias ? "conv.bias" : "bn.bias";
    CHECK(e.graph.node(0).input(2) == bias_name);
    CHECK(e.graph.node(1).input(0) == e.graph.node(0).output(0));
    const auto summary = pass_summary(e.records, report);
    const auto& folded = summary["folded_batch_norms"]["conv.weight"];
    CHECK(folded["module"] == "bn");
    CHECK(folded["bias"] == bias_name);
    CHECK(folded["parameters"] ==
          nlohmann::json({"bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"}));
    CHECK(summary["folded_nodes"]["bn"] == 1);

    inline_weights(e.graph, w);
    std::map<std::string, std::vector<float>> out;
    for (const auto& t : e.graph.initializer()) out[t.name()] = floats_of(t.raw_data());
    CHECK(out.size() == 2);  // the BN's other parameters are gone
    for (size_t o = 0; o < 3; ++o) {
      const float s = gamma[o] / std::sqrt(var[o]);
      for (size_t i = 0; i < 2; ++i)
        CHECK(out["conv.weight"][o * 2 + i] == doctest::Approx(weight[o * 2 + i] * s));
      CHECK(out[bias_name][o] == doctest::Approx(((conv_bias ? b[o] : 0.0f) - mean[o]) * s + beta[o]));
    }
  }
}

TEST_CASE("a Conv output read by more than its BatchNormalization is not folded") {
  TestEmitter e;
  WeightMap w;
  e.input("x", onnx::TensorProto::FLOAT, {1, 2, 4, 4});
  const auto ones = std::vector<float>(6, 1.0f), three = std::vector<float>(3, 1.0f);
  add_weight(e, w, "conv.weight", {3, 2, 1, 1}, ones);
  for (const char* p : {"bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"})
    add_weight(e, w, p, {3}, three);
  const auto c = e.emit1("Conv", {"x", "conv.weight"});
  const auto y =
      e.emit1("BatchNormalization", {c, "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"});
  mark_output(e, e.emit1("Add", {y, c}));
  const auto report = lean_graph(e.graph, w, 17);
  CHECK(count_op(e.graph, "BatchNormalization") == 1);
  CHECK(report.folded_batch_norms.empty());
  CHECK_FALSE(w.at("conv.weight").scaled.has_value());
}

TEST_CASE("a scaled weight streams channel by channel across chunks") {
  const size_t channels = 3, per = 700000;  // 8.4 MB: three chunks
  std::vector<float> src(channels * per);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i % 1000);
  WeightBytes wb{reinterpret_cast<const char*>(src.data()), src.size() * sizeof(float)};
  wb.scaled = ChannelScale{{1.0f, -2.0f, 0.5f}};
  std::string raw(wb.size, '\0');
  for_each_output_piece(wb, [&](uint64_t at, const char* d, uint64_t n) { std::memcpy(&raw[at], d, n); });
  const auto out = floats_of(raw);
  bool same = true;
  for (size_t i = 0; i < src.size(); ++i) same &= out[i] == src[i] * wb.scaled->scale[i / per];
  CHECK(same);
}

TEST_CASE("a comparison of integer constants folds into a bool constant") {
  TestEmitter e;
  WeightMap w;
  e.module = "m";
  const auto positions = e.emit1("Range", {e.ci64s(-1), e.ci64s(3), e.ci64s(1)});
  const auto mask = e.emit1("GreaterOrEqual", {positions, e.ci64s(0)});
  const auto y = e.emit1("Cast", {mask}, {attr("to", int64_t{onnx::TensorProto::INT64})});
  mark_output(e, e.emit1("Not", {mask}));
  mark_output(e, y);
  lean_graph(e.graph, w, 17);
  REQUIRE(e.ops() == std::vector<std::string>{"Constant", "Not"});  // the Cast, a graph output
  CHECK(constant_int64s(e.graph.node(0)) == std::vector<int64_t>{0, 1, 1, 1});
  REQUIRE(e.graph.initializer_size() == 1);  // the mask, read by Not
  CHECK(e.graph.initializer(0).data_type() == onnx::TensorProto::BOOL);
  CHECK(e.graph.initializer(0).raw_data() == std::string("\0\1\1\1", 4));
}

namespace {

const onnx::TensorProto* initializer_of(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& t : g.initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

SymbolicShapes static_shape(const std::string& value, const std::vector<int64_t>& dims) {
  std::vector<SymbolicDim> d;
  for (auto v : dims) d.push_back(SymbolicDim{v, ""});
  return {{value, d}};
}

}  // namespace

TEST_CASE("a causal mask of static positions folds: broadcast comparison, Expand, Where") {
  TestEmitter e;
  WeightMap w;
  e.module = "m";
  const auto i = e.emit1("Range", {e.ci64s(0), e.ci64s(3), e.ci64s(1)});
  const auto rows = e.unsqueeze(i, {1}), cols = e.unsqueeze(i, {0});  // [3, 1], [1, 3]
  const auto allowed = e.emit1("Expand", {e.emit1("LessOrEqual", {cols, rows}), e.ci64({2, 3, 3})});
  const auto mask = e.emit1("Where", {allowed, e.cscalar(0.0, onnx::TensorProto::FLOAT),
                                      e.cscalar(-1.0, onnx::TensorProto::FLOAT)});
  mark_output(e, e.emit1("Relu", {mask}));
  lean_graph(e.graph, w, 17);
  REQUIRE(e.ops() == std::vector<std::string>{"Relu"});
  const auto* folded = initializer_of(e.graph, e.graph.node(0).input(0));
  REQUIRE(folded);
  CHECK(std::vector<int64_t>(folded->dims().begin(), folded->dims().end()) == std::vector<int64_t>{2, 3, 3});
  std::vector<float> v(18);
  REQUIRE(folded->raw_data().size() == v.size() * 4);
  std::memcpy(v.data(), folded->raw_data().data(), folded->raw_data().size());
  const std::vector<float> lower = {0, -1, -1, 0, 0, -1, 0, 0, 0};  // column <= row
  for (size_t k = 0; k < v.size(); ++k) CHECK(v[k] == lower[k % 9]);
}

TEST_CASE("a tensor written slice by slice into a constant folds into one constant, bit for bit") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {2, 3});
  e.module = "m";
  // mask = zeros(3, 4); mask[1, 1:3] = 5; mask = mask.T[[2, 0, 1, 3]].T
  const auto mask = e.emit1("Expand", {e.cscalar(0.0, f), e.ci64({3, 4})});
  const auto row = e.emit1("Slice", {mask, e.ci64({1}), e.ci64({2}), e.ci64({0})});
  const auto left = e.emit1("Slice", {row, e.ci64({0}), e.ci64({1}), e.ci64({1})});
  const auto right = e.emit1("Slice", {row, e.ci64({-1}), e.ci64({INT64_MAX}), e.ci64({1})});
  const auto fives = e.emit1(
      "Expand",
      {e.cscalar(5.0, f), e.emit1("Shape", {e.emit1("Concat", {left, left}, {attr("axis", int64_t{1})})})});
  const auto new_row = e.emit1("Concat", {left, fives, right}, {attr("axis", int64_t{1})});
  const auto top = e.emit1("Slice", {mask, e.ci64({0}), e.ci64({1}), e.ci64({0})});
  const auto bottom = e.emit1("Slice", {mask, e.ci64({2}), e.ci64({3}), e.ci64({0})});
  auto written = e.emit1("Concat", {top, new_row, bottom}, {attr("axis", int64_t{0})});
  written = e.emit1("Transpose", {written}, {attr("perm", std::vector<int64_t>{1, 0})});
  written = e.emit1("Gather", {written, e.ci64({2, 0, 1, 3})}, {attr("axis", int64_t{0})});
  written = e.emit1("Transpose", {e.emit1("Unsqueeze", {written, e.ci64({0})})},
                    {attr("perm", std::vector<int64_t>{0, 2, 1})});
  written = e.emit1("Squeeze", {written, e.ci64({0})});
  const auto y = e.emit1("MatMul", {"x", written});
  // float arithmetic on the folded data folds too; a graph output stays a
  // Constant node
  const auto z = e.emit1("Add", {written, e.cscalar(1.0, f)});
  mark_output(e, y);
  mark_output(e, z);
  const int before = e.graph.node_size();
  const auto report = lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"MatMul", "Constant"});
  CHECK(floats_of(e.graph.node(1).attribute(0).t().raw_data()) ==
        std::vector<float>{1, 1, 1, 1, 6, 1, 6, 1, 1, 1, 1, 1});
  const auto* value = initializer_of(e.graph, e.graph.node(0).input(1));
  REQUIRE(value);
  CHECK(std::vector<int64_t>(value->dims().begin(), value->dims().end()) == std::vector<int64_t>{3, 4});
  // rows: mask with its columns permuted [2, 0, 1, 3]
  CHECK(floats_of(value->raw_data()) == std::vector<float>{0, 0, 0, 0, 5, 0, 5, 0, 0, 0, 0, 0});
  CHECK(static_cast<int>(report.removed.size()) == before - e.graph.node_size());
  CHECK(pass_summary(e.records, report)["folded_nodes"]["m"].get<int>() == before - 2);
  e.graph.clear_output();
  CHECK(e.check(y) == std::vector<int64_t>{2, 4});
}

TEST_CASE("data movement on constants folds only up to 1024 elements") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.module = "m";
  const auto big = e.emit1("Expand", {e.cscalar(0.0, f), e.ci64({64, 64})});
  const auto small = e.emit1("Expand", {e.cscalar(2.0, f), e.ci64({32, 32})});
  mark_output(e, e.emit1("Add", {big, e.cscalar(1.0, f)}));
  mark_output(e, e.emit1("Add", {small, e.cscalar(1.0, f)}));
  lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"Expand", "Add", "Constant"});
}

namespace {

// The initializer the node producing `value` reads as its input `k`.
const onnx::TensorProto& folded_input(const onnx::GraphProto& g, const std::string& value, int k) {
  for (const auto& n : g.node())
    if (n.output(0) == value) {
      const auto* t = initializer_of(g, n.input(k));
      REQUIRE(t);
      return *t;
    }
  FAIL("no node makes " << value);
  return g.initializer(0);
}

}  // namespace

TEST_CASE("float arithmetic on constants folds in float32, bit for bit, and keeps the records") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("q", f, {2, 3, 48});
  e.module = "attn";
  // scale = 1 / sqrt(float(q.size(-1))) * 0.1, as an attention lowering builds it
  const auto dim = e.emit1("Gather", {e.emit1("Shape", {"q"}), e.ci64s(2)}, {attr("axis", int64_t{0})});
  const auto root = e.emit1("Sqrt", {e.emit1("Cast", {dim}, {attr("to", int64_t{f})})});
  const auto scale = e.emit1("Mul", {e.emit1("Div", {e.cscalar(1.0, f), root}), e.cscalar(0.1, f)});
  const auto shifted = e.emit1("Neg", {e.emit1("Reciprocal", {e.emit1("Pow", {scale, e.ci64s(2)})})});
  const auto y = e.emit1("Mul", {"q", shifted});
  mark_output(e, y);
  const int before = e.graph.node_size();
  const auto report = lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"Mul"});
  volatile float d = 48.0f, one = 1.0f, tenth = 0.1f;  // float32 steps, as ONNX Runtime computes them
  const float s = one / std::sqrt(static_cast<float>(d)) * tenth;
  const float expected = -(1.0f / (s * s));
  const auto& value = folded_input(e.graph, y, 1);
  CHECK(value.data_type() == f);
  REQUIRE(floats_of(value.raw_data()).size() == 1);
  CHECK(std::memcmp(value.raw_data().data(), &expected, 4) == 0);
  CHECK(pass_summary(e.records, report)["folded_nodes"]["attn"].get<int>() == before - 1);
  CHECK(e.records.back().module == "attn");
  e.graph.clear_output();
  CHECK(e.check(y) == std::vector<int64_t>{2, 3, 48});
}

TEST_CASE("float16 and bfloat16 constant arithmetic rounds once, to nearest even, in its own type") {
  TestEmitter e;
  WeightMap w;
  const auto h = onnx::TensorProto::FLOAT16, b = onnx::TensorProto::BFLOAT16;
  e.input("x", h, {4});
  e.input("z", b, {2});
  e.module = "m";
  // 1 + 2^-11 is a tie between 1 and 1 + 2^-10 (even: 1); 1 + 3 * 2^-11
  // rounds up to 1 + 2^-9; [2] broadcast against [2, 1]
  const auto sums = e.emit1("Add", {e.constant(filled_tensor(h, {2, 1}, 1.0)),
                                    e.emit1("Concat",
                                            {e.constant(filled_tensor(h, {1}, std::ldexp(1.0, -11))),
                                             e.constant(filled_tensor(h, {1}, 3 * std::ldexp(1.0, -11)))},
                                            {attr("axis", int64_t{0})})});
  const auto y = e.emit1("Add", {"x", e.emit1("Reshape", {sums, e.ci64({4})})});
  // bfloat16: 1 + 2^-8 is a tie (even: 1); 3 * (1 + 2^-7) rounds to 3 + 2^-5
  const auto t =
      e.emit1("Mul", {e.constant(filled_tensor(b, {2}, 1 + std::ldexp(1.0, -7))), e.cscalar(3.0, b)});
  const auto u = e.emit1("Mul", {"z", e.emit1("Add", {t, e.cscalar(std::ldexp(1.0, -8), b)})});
  mark_output(e, y);
  mark_output(e, u);
  lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"Add", "Mul"});
  const auto& sum = folded_input(e.graph, y, 1);
  CHECK(sum.data_type() == h);
  CHECK(values_of<uint16_t>(sum.raw_data()) == std::vector<uint16_t>{0x3c00, 0x3c02, 0x3c00, 0x3c02});
  const auto& prod = folded_input(e.graph, u, 1);
  CHECK(prod.data_type() == b);
  // 3 * 1.0078125 = 3.0234375 -> bf16 3.03125 (0x4042); + 2^-8 stays (tie to even)
  CHECK(values_of<uint16_t>(prod.raw_data()) == std::vector<uint16_t>{0x4042, 0x4042});
}

TEST_CASE("float arithmetic a runtime may compute otherwise is left to the runtime") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {2});
  e.module = "m";
  const auto c = e.constant(filled_tensor(f, {2}, 2.0));
  std::vector<std::string> kept = {
      e.emit1("Pow", {e.constant(filled_tensor(onnx::TensorProto::FLOAT16, {2}, 2.0)),
                      e.cscalar(0.5, onnx::TensorProto::FLOAT16)}),  // a half type's pow: rounded twice
      e.emit1("Tanh", {c}),                                        // the math library's tanh
      e.emit1("Sqrt", {e.constant(filled_tensor(f, {2}, -1.0))}),  // NaN
      e.emit1("Cast", {e.constant(filled_tensor(onnx::TensorProto::DOUBLE, {2}, 0.1))},
              {attr("to", int64_t{onnx::TensorProto::FLOAT16})}),  // double -> half: rounding path
      e.emit1("Cast", {e.ci64({(int64_t{1} << 24) + 1, 3})}, {attr("to", int64_t{f})}),  // not exact in float
      e.emit1("Cast", {e.constant(filled_tensor(f, {2}, 3e9))},
              {attr("to", int64_t{onnx::TensorProto::INT64})}),  // past int32
  };
  const auto folded = e.emit1("Cast", {e.constant(filled_tensor(f, {2}, -2.75))},
                              {attr("to", int64_t{onnx::TensorProto::INT64})});
  for (const auto& v : kept) mark_output(e, v);
  mark_output(e, folded);
  lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"Pow", "Tanh", "Sqrt", "Cast", "Cast", "Cast", "Constant"});
  CHECK(constant_int64s(e.graph.node(6)) == std::vector<int64_t>{-2, -2});
}

TEST_CASE("Pow, Cos and Exp of constants fold, rounded from double") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {3});
  e.module = "m";
  // A rotary table's inverse frequencies: theta ^ (arange(0, d, 2) / d).
  onnx::TensorProto exponents = filled_tensor(f, {3}, 0.0);
  const std::vector<float> ex = {0.0f, 1.0f / 3.0f, 2.0f / 3.0f};
  exponents.set_raw_data(std::string(reinterpret_cast<const char*>(ex.data()), ex.size() * sizeof(float)));
  const auto freqs = e.emit1("Reciprocal", {e.emit1("Pow", {e.cscalar(10000.0, f), e.constant(exponents)})});
  const auto y = e.emit1("Mul", {"x", e.emit1("Cos", {freqs})});
  // A timestep embedding's frequencies: exp(-log(10000) * arange(half) / half).
  const auto z = e.emit1("Mul", {"x", e.emit1("Exp", {e.constant(exponents)})});
  mark_output(e, y);
  mark_output(e, z);
  lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"Mul", "Mul"});
  std::vector<float> want, want_exp;
  for (float v : ex) {
    want.push_back(static_cast<float>(std::cos(1.0f / static_cast<float>(std::pow(10000.0, double{v})))));
    want_exp.push_back(static_cast<float>(std::exp(double{v})));
  }
  CHECK(values_of<float>(folded_input(e.graph, y, 1).raw_data()) == want);
  CHECK(values_of<float>(folded_input(e.graph, z, 1).raw_data()) == want_exp);
}

TEST_CASE("Slices that tile a static axis become one Split") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {2, 3, 8});
  e.module = "m";
  // rotate_half: cat(-x[..., 4:], x[..., :4])
  const auto lo = e.emit1("Slice", {"x", e.ci64({0}), e.ci64({4}), e.ci64({-1}), e.ci64({1})});
  const auto hi = e.emit1("Slice", {"x", e.ci64({4}), e.ci64({INT64_MAX}), e.ci64({-1})});
  const auto y = e.emit1("Concat", {e.emit1("Neg", {hi}), lo}, {attr("axis", int64_t{-1})});
  // a gap (rows 0 and 2 of axis 1) stays two Slices
  const auto r0 = e.emit1("Slice", {"x", e.ci64({0}), e.ci64({1}), e.ci64({1})});
  const auto r2 = e.emit1("Slice", {"x", e.ci64({2}), e.ci64({3}), e.ci64({1})});
  const auto z = e.emit1("Add", {r0, r2});
  mark_output(e, y);
  mark_output(e, z);
  const auto report = lean_graph(e.graph, w, 17, static_shape("x", {2, 3, 8}));
  CHECK(count_op(e.graph, "Split") == 1);
  CHECK(count_op(e.graph, "Slice") == 2);
  for (const auto& n : e.graph.node())
    if (n.op_type() == "Split") {
      CHECK(n.name() == e.graph.node(0).name());  // the first Slice, rewritten in place
      CHECK(std::vector<std::string>(n.output().begin(), n.output().end()) ==
            std::vector<std::string>{lo, hi});
      const auto* sizes = initializer_of(e.graph, n.input(1));
      REQUIRE(sizes);
      std::vector<int64_t> v(2);
      std::memcpy(v.data(), sizes->raw_data().data(), 16);
      CHECK(v == std::vector<int64_t>{4, 4});
      CHECK(n.attribute(0).i() == 2);
    }
  CHECK(pass_summary(e.records, report)["folded_nodes"]["m"].get<int>() >= 1);
  e.graph.clear_output();
  CHECK(e.check(y) == std::vector<int64_t>{2, 3, 8});
}

TEST_CASE("Slices of an axis the program does not know statically stay") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {2, 8});
  e.module = "m";
  const auto lo = e.emit1("Slice", {"x", e.ci64({0}), e.ci64({4}), e.ci64({1})});
  const auto hi = e.emit1("Slice", {"x", e.ci64({4}), e.ci64({INT64_MAX}), e.ci64({1})});
  mark_output(e, e.emit1("Add", {lo, hi}));
  lean_graph(e.graph, w, 17);  // no program dims
  CHECK(count_op(e.graph, "Slice") == 2);
  CHECK(count_op(e.graph, "Split") == 0);
}

TEST_CASE("an Expand of a buffer to ones no longer than its rank is dropped") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {2, 8});
  const auto bytes = iota_floats(8);  // the weight map points at them: alive through the passes
  add_weight(e, w, "buf", {1, 8}, bytes);
  e.module = "m";
  const auto same = e.emit1("Expand", {"buf", e.ci64({1, 1})});
  const auto wider = e.emit1("Expand", {"buf", e.ci64({1, 1, 1})});  // rank 3: not a no-op
  mark_output(e, e.emit1("Add", {"x", same}));
  mark_output(e, e.emit1("Add", {"x", wider}));
  lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"Expand", "Add", "Add"});
  CHECK(e.graph.node(1).input(1) == "buf");
}

TEST_CASE("two one-sided clamps by scalar constants are one Clip; other pairs stay") {
  TestEmitter e;
  WeightMap w;
  e.input("x", onnx::TensorProto::FLOAT, {2, 3});
  e.module = "act";
  const auto zero = e.cscalar(0.0, onnx::TensorProto::FLOAT), six = e.cscalar(6.0, onnx::TensorProto::FLOAT);
  const auto clipped = e.emit1("Min", {e.emit1("Max", {"x", zero}), six});
  const auto reversed = e.emit1("Max", {e.emit1("Min", {"x", six}), zero});  // clamp(max) then clamp(min)
  const auto empty = e.emit1("Min", {e.emit1("Max", {"x", six}), zero});     // lo > hi: torch gives hi
  const auto shared = e.emit1("Max", {"x", e.cscalar(1.0, onnx::TensorProto::FLOAT)});
  const auto twice = e.emit1("Min", {shared, six});  // the Max is read twice
  mark_output(e, clipped);
  mark_output(e, reversed);
  mark_output(e, empty);
  mark_output(e, twice);
  mark_output(e, e.emit1("Neg", {shared}));
  lean_graph(e.graph, w, 17);
  CHECK(count_op(e.graph, "Clip") == 2);
  CHECK(count_op(e.graph, "Max") == 2);  // lo > hi, and the Max read twice
  CHECK(count_op(e.graph, "Min") == 2);
  for (const auto& n : e.graph.node())
    if (n.op_type() == "Clip") CHECK(n.input(0) == "x");
}

TEST_CASE("a zero Pad of the spatial dims read by one Conv becomes the Conv's pads") {
  TestEmitter e;
  WeightMap w;
  e.input("x", onnx::TensorProto::FLOAT, {1, 2, 5, 5});
  e.module = "conv";
  std::vector<float> ones(2 * 2 * 3 * 3, 1.0f);
  add_weight(e, w, "k", {2, 2, 3, 3}, ones);
  const auto padded =
      e.emit1("Pad", {"x", e.ci64({0, 0, 0, 1, 0, 0, 1, 1}), e.cscalar(0.0, onnx::TensorProto::FLOAT)});
  const auto y = e.emit1("Conv", {padded, "k"}, {attr("pads", std::vector<int64_t>{1, 0, 1, 0})});
  const auto reflected =
      e.emit1("Pad", {"x", e.ci64({0, 0, 1, 1, 0, 0, 1, 1})}, {attr("mode", std::string("reflect"))});
  const auto z = e.emit1("Conv", {reflected, "k"});
  mark_output(e, y);
  mark_output(e, z);
  lean_graph(e.graph, w, 17);
  CHECK(count_op(e.graph, "Pad") == 1);  // the reflect Pad stays
  for (const auto& n : e.graph.node()) {
    if (n.op_type() != "Conv" || n.output(0) != y) continue;
    CHECK(n.input(0) == "x");
    std::vector<int64_t> pads;
    for (const auto& a : n.attribute())
      if (a.name() == "pads") pads.assign(a.ints().begin(), a.ints().end());
    CHECK(pads == std::vector<int64_t>{1, 1, 2, 1});
  }
}

namespace {

// DETR's DetrFrozenBatchNorm2d after a Conv: `x * scale + bias`, with
// scale = w * (rv + eps).rsqrt() and bias = b - rm * scale computed on the
// buffers (each [3] viewed as [1, 3, 1, 1]).
struct FrozenBatchNorm {
  std::vector<float> weight = iota_floats(3 * 2), w = {1.0f, 2.0f, 0.5f}, b = {0.1f, 0.2f, 0.3f},
                     rm = {1.0f, -1.0f, 0.0f}, rv = {4.0f, 1.0f, 0.3f};
  std::string out;
  FrozenBatchNorm(TestEmitter& e, WeightMap& weights) {
    const auto f = onnx::TensorProto::FLOAT;
    e.input("x", f, {1, 2, 4, 4});
    add_weight(e, weights, "conv.weight", {3, 2, 1, 1}, weight);
    for (auto [name, v] : {std::pair{"bn.weight", &w}, {"bn.bias", &b}, {"bn.running_mean", &rm},
                           {"bn.running_var", &rv}})
      add_weight(e, weights, name, {3}, *v);
    e.module = "conv";
    const auto c = e.emit1("Conv", {"x", "conv.weight"});
    e.module = "bn";
    auto view = [&](const char* p) { return e.emit1("Reshape", {p, e.ci64({1, -1, 1, 1})}); };
    const auto root = e.emit1("Sqrt", {e.emit1("Add", {view("bn.running_var"), e.cscalar(1e-5, f)})});
    const auto scale = e.emit1("Mul", {view("bn.weight"), e.emit1("Reciprocal", {root})});
    const auto shift = e.emit1("Sub", {view("bn.bias"), e.emit1("Mul", {view("bn.running_mean"), scale})});
    out = e.emit1("Relu", {e.emit1("Add", {e.emit1("Mul", {c, scale}), shift})});
    mark_output(e, out);
  }
  // scale and shift as ONNX Runtime computes them, float32 step by step
  std::vector<float> scale() const {
    std::vector<float> s;
    for (size_t k = 0; k < 3; ++k) {
      volatile float sum = rv[k] + 1e-5f, root = std::sqrt(static_cast<float>(sum)), r = 1.0f / root;
      s.push_back(w[k] * r);
    }
    return s;
  }
  std::vector<float> shift() const {
    std::vector<float> t;
    const auto s = scale();
    for (size_t k = 0; k < 3; ++k) {
      volatile float p = rm[k] * s[k];
      t.push_back(b[k] - p);
    }
    return t;
  }
};

}  // namespace

TEST_CASE("a batch norm computed on its buffers folds into two constants, then into the Conv") {
  TestEmitter e;
  WeightMap w;
  FrozenBatchNorm bn(e, w);
  const auto report = lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"Conv", "Relu"});
  const auto summary = pass_summary(e.records, report);
  const auto& folded = summary["folded_channel_affines"]["conv.weight"];
  CHECK(folded["module"] == "bn");
  CHECK(folded["scale_from"] == nlohmann::json({"bn.running_var", "bn.weight"}));
  CHECK(folded["shift_from"] ==
        nlohmann::json({"bn.bias", "bn.running_mean", "bn.running_var", "bn.weight"}));
  const std::string bias = e.graph.node(0).input(2);
  CHECK(folded["bias"] == bias);
  CHECK(summary["weight_constants"].size() == 1);  // the shift, now the Conv's bias
  CHECK(summary["weight_constants"][bias].size() == 4);
  CHECK(summary["folded_nodes"]["bn"].get<int>() > 2);

  inline_weights(e.graph, w);
  std::map<std::string, std::vector<float>> out;
  for (const auto& t : e.graph.initializer()) out[t.name()] = floats_of(t.raw_data());
  for (const auto& [name, v] : out) CHECK(name.rfind("bn.", 0) == std::string::npos);  // the buffers are gone
  const auto s = bn.scale(), t = bn.shift();
  CHECK(out[bias] == t);  // 0 * s + t: the shift's bits
  for (size_t o = 0; o < 3; ++o)
    for (size_t i = 0; i < 2; ++i) CHECK(out["conv.weight"][o * 2 + i] == bn.weight[o * 2 + i] * s[o]);
  e.graph.clear_output();
  CHECK(e.check(bn.out) == std::vector<int64_t>{1, 3, 4, 4});
}

TEST_CASE("without batch norm folding, its arithmetic on buffers still folds, bit for bit") {
  TestEmitter e;
  WeightMap w;
  FrozenBatchNorm bn(e, w);
  const auto report = lean_graph(e.graph, w, 17, {}, true, false);
  CHECK(e.ops() == std::vector<std::string>{"Conv", "Mul", "Add", "Relu"});
  CHECK(report.folded_channel_affines.empty());
  CHECK_FALSE(w.at("conv.weight").scaled.has_value());
  const auto& scale = folded_input(e.graph, e.graph.node(1).output(0), 1);
  const auto& shift = folded_input(e.graph, e.graph.node(2).output(0), 1);
  CHECK(floats_of(scale.raw_data()) == bn.scale());
  CHECK(floats_of(shift.raw_data()) == bn.shift());
  CHECK(report.weight_constants.size() == 2);
}

TEST_CASE("a weight two folded results would copy whole stays a weight") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {64, 64});
  const auto bytes = iota_floats(64 * 64);  // WeightBytes points into it: it must outlive the passes
  add_weight(e, w, "big", {64, 64}, bytes);  // 16 KB: two copies would double it
  const auto a = e.emit1("Reshape", {"big", e.ci64({4096})});
  const auto b = e.emit1("Reshape", {"big", e.ci64({64, 64, 1})});
  mark_output(e, e.emit1("Add", {e.emit1("Reshape", {a, e.ci64({64, 64})}), "x"}));
  mark_output(e, e.emit1("Squeeze", {b, e.ci64({2})}));
  const auto report = lean_graph(e.graph, w, 17);
  CHECK(report.weight_constants.empty());
  CHECK(std::any_of(e.graph.initializer().begin(), e.graph.initializer().end(),
                    [](const onnx::TensorProto& t) { return t.name() == "big"; }));
}

TEST_CASE("index arithmetic clamped into range folds: Floor, Max, Min, Clip of constants") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {8, 4});
  e.module = "up";
  // source index of each output pixel, as an interpolation decomposes it:
  // clamp(floor((i + 0.5) * 0.5 - 0.5), 0, 3), cast to int64, clamp(+1, max 3)
  const auto i = e.emit1("Cast", {e.emit1("Range", {e.ci64s(0), e.ci64s(8), e.ci64s(1)})},
                         {attr("to", int64_t{f})});
  const auto src = e.emit1("Sub", {e.emit1("Mul", {e.emit1("Add", {i, e.cscalar(0.5, f)}), e.cscalar(0.5, f)}),
                                   e.cscalar(0.5, f)});
  const auto lo = e.emit1("Max", {e.emit1("Floor", {src}), e.cscalar(0.0, f)});
  const auto idx = e.emit1("Cast", {lo}, {attr("to", int64_t{onnx::TensorProto::INT64})});
  const auto next = e.emit1("Clip", {e.emit1("Add", {idx, e.ci64s(1)}), e.ci64s(0), e.ci64s(3)});
  const auto both = e.emit1("Min", {e.emit1("Concat", {idx, next}, {attr("axis", int64_t{0})}), e.ci64s(3)});
  const auto y = e.emit1("Gather", {"x", both}, {attr("axis", int64_t{0})});
  mark_output(e, y);
  // -0 against +0: which one a runtime's Max returns is its choice
  const auto zeros = e.emit1("Max", {e.cscalar(-0.0, f), e.cscalar(0.0, f)});
  mark_output(e, e.emit1("Add", {"x", zeros}));
  lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"Gather", "Max", "Add"});
  const auto& index = folded_input(e.graph, y, 1);
  CHECK(values_of<int64_t>(index.raw_data()) ==
        std::vector<int64_t>{0, 0, 0, 1, 1, 2, 2, 3, 1, 1, 1, 2, 2, 3, 3, 3});
}

TEST_CASE("constant indices lose their negative-index fix-up; an identity Transpose goes") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {6, 2});
  e.graph.mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param(
      "n");  // dynamic: its size is computed at run time
  e.module = "m";
  // index_put's `Where(i < 0, i + n, i)` with i a constant: all false
  const auto fix = [&](const std::vector<int64_t>& i) {
    const auto n = e.emit1("Gather", {e.emit1("Shape", {"x"}), e.ci64s(0)}, {attr("axis", int64_t{0})});
    const auto idx = e.ci64(i);
    return e.emit1("Where", {e.emit1("Less", {idx, e.ci64s(0)}), e.emit1("Add", {idx, n}), idx});
  };
  const auto kept = fix({-1, 2});  // one negative index: the fix-up stays
  const auto gone = fix({0, 2});
  const auto t = e.emit1("Transpose", {"x"}, {attr("perm", std::vector<int64_t>{0, 1})});
  const auto y = e.emit1("Gather", {t, gone}, {attr("axis", int64_t{0})});
  mark_output(e, y);
  mark_output(e, e.emit1("Gather", {"x", kept}, {attr("axis", int64_t{0})}));
  lean_graph(e.graph, w, 17);
  CHECK(count_op(e.graph, "Where") == 1);
  CHECK(count_op(e.graph, "Transpose") == 0);
  const auto& gather = e.graph.node(e.graph.node_size() - 2);
  CHECK(gather.input(0) == "x");
  const auto* index = initializer_of(e.graph, gather.input(1));
  REQUIRE(index);
  CHECK(values_of<int64_t>(index->raw_data()) == std::vector<int64_t>{0, 2});
  e.graph.clear_output();
  e.check(y);
}

TEST_CASE("indices never negative lose their negative-index fix-up: NonZero's, a Range's") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {6, 2});
  e.graph.mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("n");
  e.module = "m";
  // rows of x whose first column is positive: NonZero, split per dim
  const auto col = e.emit1("Gather", {"x", e.ci64s(0)}, {attr("axis", int64_t{1})});
  const auto nz = e.emit1("NonZero", {e.emit1("Greater", {col, e.cscalar(0.0, f)})});
  const auto i = e.emit1("Squeeze", {nz, e.ci64({0})});
  const auto n = e.emit1("Gather", {e.emit1("Shape", {"x"}), e.ci64s(0)}, {attr("axis", int64_t{0})});
  const auto fixed = e.emit1("Where", {e.emit1("Less", {i, e.ci64s(0)}), e.emit1("Add", {i, n}), i});
  const auto y = e.emit1("Gather", {"x", fixed}, {attr("axis", int64_t{0})});
  mark_output(e, y);
  // and window rows of an unfold: Range(0, n, 2) + [[0], [1]], never negative
  onnx::TensorProto offsets = int64_tensor({0, 1});
  offsets.clear_dims();
  offsets.add_dims(2);
  offsets.add_dims(1);
  const auto starts = e.emit1(
      "Add", {e.emit1("Unsqueeze", {e.emit1("Range", {e.ci64s(0), n, e.ci64s(2)}), e.ci64({0})}), e.constant(offsets)});
  const auto fixed2 = e.emit1("Where", {e.emit1("Less", {starts, e.ci64s(0)}), e.emit1("Add", {starts, n}), starts});
  mark_output(e, e.emit1("Gather", {"x", fixed2}, {attr("axis", int64_t{0})}));
  lean_graph(e.graph, w, 17);
  CHECK(count_op(e.graph, "Where") == 0);
  CHECK(count_op(e.graph, "Less") == 0);
  e.graph.clear_output();
  e.check(y);
}

TEST_CASE("a Slice by steps of 1 to its input's dims goes; a reversing one stays") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {2, 8});
  e.graph.mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("s");
  e.module = "m";
  // x[:, 0:8] of an x of 8 columns (core ATen's slice to a static end)
  const auto whole = e.emit1("Slice", {"x", e.ci64({0}), e.ci64({8}), e.ci64({1})});
  const auto stepped = e.emit1("Slice", {"x", e.ci64({0}), e.ci64({8}), e.ci64({1}), e.ci64({1})});
  // x[:, ::-1]: the same dims, reversed
  const auto reversed = e.emit1("Slice", {"x", e.ci64({-1}), e.ci64({INT64_MIN}), e.ci64({1}), e.ci64({-1})});
  const std::vector<SymbolicDim> dims{SymbolicDim{std::nullopt, "s"}, SymbolicDim{8, ""}};
  SymbolicShapes shapes{{"x", dims}, {whole, dims}, {stepped, dims}, {reversed, dims}};
  const auto y = e.emit1("Add", {whole, stepped});
  mark_output(e, y);
  mark_output(e, reversed);
  lean_graph(e.graph, w, 17, shapes);
  CHECK(count_op(e.graph, "Slice") == 1);
  for (const auto& n : e.graph.node())
    if (n.op_type() == "Add") CHECK(std::vector<std::string>(n.input().begin(), n.input().end()) ==
                                    std::vector<std::string>{"x", "x"});
}

TEST_CASE("a ReduceSum of integer constants folds (a relative-position index); an overflow stays") {
  TestEmitter e;
  WeightMap w;
  e.input("x", onnx::TensorProto::FLOAT, {9});
  e.module = "m";
  // coordinates [[0, 1], [2, 3], [4, 5]] weighted by [3, 1]: 1, 9, 17
  const auto coords = e.emit1("Reshape", {e.emit1("Range", {e.ci64s(0), e.ci64s(6), e.ci64s(1)}), e.ci64({3, 2})});
  const auto index = e.emit1("ReduceSum", {e.emit1("Mul", {coords, e.ci64({3, 1})}), e.ci64({1})},
                             {attr("keepdims", int64_t{0})});
  mark_output(e, e.emit1("Gather", {"x", e.emit1("Div", {index, e.ci64s(2)})}));  // 0, 4, 8
  const auto all = e.emit1("ReduceSum", {coords}, {attr("keepdims", int64_t{1})});  // [[15]]
  mark_output(e, e.emit1("Gather", {"x", e.emit1("Sub", {all, e.ci64s(10)})}));
  mark_output(e, e.emit1("ReduceSum", {e.ci64({INT64_MAX, 1})}, {attr("keepdims", int64_t{0})}));
  lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"Gather", "Gather", "ReduceSum"});
  const auto* first = initializer_of(e.graph, e.graph.node(0).input(1));
  const auto* second = initializer_of(e.graph, e.graph.node(1).input(1));
  REQUIRE(first);
  REQUIRE(second);
  CHECK(values_of<int64_t>(first->raw_data()) == std::vector<int64_t>{0, 4, 8});
  CHECK(values_of<int64_t>(second->raw_data()) == std::vector<int64_t>{5});
  CHECK(std::vector<int64_t>(second->dims().begin(), second->dims().end()) == std::vector<int64_t>{1, 1});
}

TEST_CASE("an expand to [batch, -1, -1] needs no Abs: its constant -1s are written as 1s") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {-1, 4, 3});
  e.module = "m";
  const auto minus_ones = e.ci64({-1, -1});
  const auto sizes = e.emit1("Concat", {e.emit1("Shape", {"x"}, {attr("start", int64_t{0}), attr("end", int64_t{1})}),
                                        minus_ones},
                             {attr("axis", int64_t{0})});
  const auto token = e.constant(filled_tensor(f, {1, 1, 3}, 0.5));
  mark_output(e, e.emit1("Expand", {token, e.emit1("Abs", {sizes})}));
  e.input("k", onnx::TensorProto::INT64, {3});
  mark_output(e, e.emit1("Mul", {"k", e.emit1("Concat", {e.ci64({12}), minus_ones}, {attr("axis", int64_t{0})})}));
  lean_graph(e.graph, w, 17);
  CHECK(count_op(e.graph, "Abs") == 0);
  for (const auto& n : e.graph.node()) {
    if (n.op_type() != "Concat") continue;
    const auto* part = initializer_of(e.graph, n.input(1));
    REQUIRE(part);
    CHECK(values_of<int64_t>(part->raw_data()) == std::vector<int64_t>{1, 1});  // the Expand's; the other folded
  }
  for (const auto& n : e.graph.node())
    if (n.op_type() == "Mul") {  // the other reader of the -1s still reads them
      const auto* shape = initializer_of(e.graph, n.input(1));
      REQUIRE(shape);
      CHECK(values_of<int64_t>(shape->raw_data()) == std::vector<int64_t>{12, -1, -1});
    }
  CHECK(count_op(e.graph, "Mul") == 1);
}

TEST_CASE("Abs and Neg of integer constants fold (reflected indices); the lowest value stays") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {2, 64});
  e.module = "m";
  // reflection-padding indices of 64 columns by 8: 63 - |63 - |i||, i in [-8, 72)
  const auto i = e.emit1("Range", {e.ci64s(-8), e.ci64s(72), e.ci64s(1)});
  const auto r = e.emit1("Sub", {e.ci64s(63), e.emit1("Abs", {e.emit1("Sub", {e.ci64s(63), e.emit1("Abs", {i})})})});
  const auto y = e.emit1("Gather", {"x", r}, {attr("axis", int64_t{1})});
  mark_output(e, y);
  mark_output(e, e.emit1("Gather", {"x", e.emit1("Neg", {e.ci64({-1, -2})})}, {attr("axis", int64_t{1})}));
  mark_output(e, e.emit1("Abs", {e.ci64({INT64_MIN})}));  // |INT64_MIN| wraps around
  lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"Gather", "Gather", "Abs"});
  const auto* index = initializer_of(e.graph, e.graph.node(0).input(1));
  REQUIRE(index);
  const auto v = values_of<int64_t>(index->raw_data());
  REQUIRE(v.size() == 80);
  CHECK(v[0] == 8);    // -8 reflects to 8
  CHECK(v[8] == 0);
  CHECK(v[71] == 63);
  CHECK(v[72] == 62);  // 64 reflects to 62
  CHECK(v[79] == 55);
  const auto* neg = initializer_of(e.graph, e.graph.node(1).input(1));
  REQUIRE(neg);
  CHECK(values_of<int64_t>(neg->raw_data()) == std::vector<int64_t>{1, 2});
  e.graph.clear_output();
  CHECK(e.check(y) == std::vector<int64_t>{2, 80});
}

TEST_CASE("a Concat of constants it alone reads folds past 1024 elements; a shared one does not") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {40, 40});
  e.module = "m";
  // GatherND's stacked indices [20, 40, 2] of two [20, 40, 1] index constants:
  // Range(from, from + n) placed along `axis` of [20, 40] and expanded
  const auto positions = [&](int64_t from, int64_t n, int64_t axis) {
    const auto r = e.emit1("Range", {e.ci64s(from), e.ci64s(from + n), e.ci64s(1)});
    return e.emit1("Expand", {e.emit1("Unsqueeze", {r, e.ci64({1 - axis, 2})}), e.ci64({20, 40, 1})});
  };
  const auto stacked = [&](const std::string& rows, const std::string& cols) {
    return e.emit1("Concat", {rows, cols}, {attr("axis", int64_t{-1})});
  };
  const auto y = e.emit1("GatherND", {"x", stacked(positions(0, 20, 0), positions(0, 40, 1))});
  mark_output(e, y);
  // the same Concat, its rows also read elsewhere: folding would store them twice
  const auto rows2 = positions(1, 20, 0);
  mark_output(e, e.emit1("GatherND", {"x", stacked(rows2, positions(0, 40, 1))}));
  mark_output(e, rows2);  // a graph output: stays a Constant node
  lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"GatherND", "Constant", "Concat", "GatherND"});
  const auto* index = initializer_of(e.graph, e.graph.node(0).input(1));
  REQUIRE(index);
  const auto v = values_of<int64_t>(index->raw_data());
  REQUIRE(v.size() == 1600);
  CHECK(v[0] == 0);
  CHECK(v[1] == 0);
  CHECK(v[2 * 41] == 1);      // [1, 1]: row 1
  CHECK(v[2 * 41 + 1] == 1);  //         column 1
  CHECK(v[1598] == 19);
  CHECK(v[1599] == 39);
  e.graph.clear_output();
  CHECK(e.check(y) == std::vector<int64_t>{20, 40});
}

TEST_CASE("a no-op writing a graph output hands it to its input's producer, unless that is read elsewhere") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {2, 3});
  e.module = "m";
  const auto g = e.emit1("Gather", {"x", e.ci64({2, 0})}, {attr("axis", int64_t{1})});
  const auto gather_name = e.graph.node(e.graph.node_size() - 1).name();
  const auto y = e.emit1("Transpose", {g}, {attr("perm", std::vector<int64_t>{0, 1})});
  const auto r = e.emit1("Relu", {"x"});
  const auto z = e.emit1("Identity", {r});
  mark_output(e, y);
  mark_output(e, z);
  mark_output(e, e.emit1("Neg", {r}));  // r read twice: its Identity stays
  lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"Gather", "Relu", "Identity", "Neg"});
  CHECK(e.graph.node(0).name() == gather_name);
  CHECK(e.graph.node(0).output(0) == y);
  e.graph.clear_output();
  CHECK(e.check(y) == std::vector<int64_t>{2, 2});
}

TEST_CASE("a float Range of whole numbers folds; a fractional step stays") {
  TestEmitter e;
  WeightMap w;
  const auto f = onnx::TensorProto::FLOAT;
  e.input("x", f, {17});
  e.module = "m";
  // a window's positions, scaled: arange(0, 17) * (pi / 8)
  const auto pos = e.emit1("Range", {e.cscalar(0.0, f), e.cscalar(17.0, f), e.cscalar(1.0, f)});
  const auto y = e.emit1("Add", {"x", e.emit1("Mul", {pos, e.cscalar(0.39269908169872414, f)})});
  const auto down = e.emit1("Range", {e.cscalar(9.0, f), e.cscalar(0.0, f), e.cscalar(-3.0, f)});
  const auto half = e.emit1("Range", {e.cscalar(0.0, f), e.cscalar(2.0, f), e.cscalar(0.5, f)});
  mark_output(e, y);
  mark_output(e, e.emit1("Neg", {down}));
  mark_output(e, e.emit1("Neg", {half}));
  lean_graph(e.graph, w, 17);
  CHECK(e.ops() == std::vector<std::string>{"Add", "Range", "Constant", "Neg"});
  const auto* scaled = initializer_of(e.graph, e.graph.node(0).input(1));
  REQUIRE(scaled);
  const auto v = floats_of(scaled->raw_data());
  REQUIRE(v.size() == 17);
  for (size_t k = 0; k < v.size(); ++k) CHECK(v[k] == static_cast<float>(k) * 0.39269908169872414f);
  CHECK(floats_of(e.graph.node(2).attribute(0).t().raw_data()) == std::vector<float>{-9.0f, -6.0f, -3.0f});
  e.graph.clear_output();
  CHECK(e.check(y) == std::vector<int64_t>{17});
}

namespace {

// x: [dims...] with a dim_param for each negative entry ("d<k>").
void dynamic_input(TestEmitter& e, const std::string& name, const std::vector<int64_t>& dims) {
  auto* vi = e.graph.add_input();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (size_t k = 0; k < dims.size(); ++k) {
    auto* d = tt->mutable_shape()->add_dim();
    if (dims[k] < 0) d->set_dim_param("d" + std::to_string(k));
    else d->set_dim_value(dims[k]);
  }
}

}  // namespace

TEST_CASE("reads of dims the program states static become constants; dynamic ones stay") {
  TestEmitter e;
  WeightMap w;
  dynamic_input(e, "x", {2, 3, -1, -1});
  e.module = "m";
  // Resize's [N, C] head, a Gather of C, a Shape slice of C, and the dynamic H
  const auto head = e.emit1("Slice", {e.shape_of("x"), e.ci64({0}), e.ci64({2})});
  const auto c = e.unsqueeze(e.emit1("Add", {e.dim_size("x", 1), e.ci64s(1)}), {0});
  const auto c_sliced = e.emit1("Shape", {"x"}, {attr("start", int64_t{-3}), attr("end", int64_t{2})});
  const auto h = e.unsqueeze(e.dim_size("x", 2), {0});
  const auto sizes = e.emit1("Concat", {head, c, c_sliced, h}, {attr("axis", int64_t{0})});
  mark_output(e, sizes);
  SymbolicShapes shapes;
  shapes["x"] = {SymbolicDim{2, ""}, SymbolicDim{3, ""}, SymbolicDim{std::nullopt, "h"},
                 SymbolicDim{std::nullopt, "w"}};
  lean_graph(e.graph, w, 17, shapes);
  // what is left: H's read (Shape(x, 2, 3)) and the Concat of it and the constants 2, 3, 4, 3
  CHECK(e.ops() == std::vector<std::string>{"Shape", "Concat"});
  const auto& concat = e.graph.node(1);
  std::vector<int64_t> constants;
  for (const auto& in : concat.input())
    if (const auto* t = initializer_of(e.graph, in)) {
      const auto v = values_of<int64_t>(t->raw_data());
      constants.insert(constants.end(), v.begin(), v.end());
    }
  CHECK(constants == std::vector<int64_t>{2, 3, 4, 3});
  e.graph.clear_output();
  CHECK(e.check(sizes) == std::vector<int64_t>{5});
}

TEST_CASE("a dim read as a scalar and as a slice is read once, as the slice") {
  TestEmitter e;
  WeightMap w;
  dynamic_input(e, "x", {1, 3, -1, -1});
  e.module = "m";
  // deeplab's sizes: (h - 1) / 16 + 1 for a pooled branch, (h, w) for the
  // last upsample: Gather(Shape(x), 2) feeds both
  const auto pooled = e.emit1("Add", {e.emit1("Div", {e.emit1("Add", {e.dim_size("x", 2), e.ci64s(-1)}), e.ci64s(16)}),
                                      e.ci64s(1)});
  const auto sizes = e.emit1("Concat", {e.unsqueeze(pooled, {0}), e.unsqueeze(e.dim_size("x", 2), {0}),
                                        e.unsqueeze(e.dim_size("x", 3), {0})},
                             {attr("axis", int64_t{0})});
  mark_output(e, sizes);
  lean_graph(e.graph, w, 17);
  CHECK(count_op(e.graph, "Shape") == 2);  // Shape(x, 2, 3) and Shape(x, 3, 4)
  CHECK(count_op(e.graph, "Gather") == 0);
  CHECK(count_op(e.graph, "Squeeze") == 1);  // h for the arithmetic
  for (const auto& n : e.graph.node())
    if (n.op_type() == "Shape") CHECK(n.attribute_size() == 2);
  e.graph.clear_output();
  CHECK(e.check(sizes) == std::vector<int64_t>{3});  // the checker also checks the node order
}

TEST_CASE("a whole Shape read by a Gather of a dim nobody reads sliced stays") {
  TestEmitter e;
  WeightMap w;
  dynamic_input(e, "x", {1, 3, -1, -1});
  e.module = "m";
  const auto sizes = e.emit1("Concat", {e.unsqueeze(e.emit1("Mul", {e.dim_size("x", 2), e.ci64s(2)}), {0}),
                                        e.unsqueeze(e.dim_size("x", 3), {0})},
                             {attr("axis", int64_t{0})});
  mark_output(e, sizes);
  lean_graph(e.graph, w, 17);
  CHECK(count_op(e.graph, "Gather") == 1);  // h: no Shape(x, 2, 3) to read instead
  CHECK(count_op(e.graph, "Squeeze") == 0);
  e.graph.clear_output();
  CHECK(e.check(sizes) == std::vector<int64_t>{2});
}

namespace {

using Attrs = std::vector<onnx::AttributeProto>;

// x + Resize(pos, "", scales, sizes) of a weight `pos` of `dtype` with the
// bytes `raw`, after the lean passes: the raw bytes of the constant the
// Resize was folded into, or nothing when it stays. `sizes_of_shape`:
// the sizes are computed from the weight's own Shape (YOLOS's
// `Concat(Slice(Shape(table)), [h, w])`), the last two given.
std::optional<std::string> folded_resize(int32_t dtype, const std::vector<int64_t>& dims, const std::string& raw,
                                         const std::vector<float>& scales, const std::vector<int64_t>& sizes,
                                         const Attrs& attrs, bool sizes_of_shape = false) {
  TestEmitter e(19);
  WeightMap w;
  auto* t = e.graph.add_initializer();
  t->set_name("pos");
  t->set_data_type(dtype);
  for (auto d : dims) t->add_dims(d);
  w["pos"] = WeightBytes{raw.data(), raw.size()};
  e.input("x", dtype, {1});
  std::string s, z;
  if (!scales.empty()) {
    onnx::TensorProto v;
    v.set_data_type(onnx::TensorProto::FLOAT);
    v.add_dims(static_cast<int64_t>(scales.size()));
    v.set_raw_data(std::string(reinterpret_cast<const char*>(scales.data()), scales.size() * sizeof(float)));
    s = e.constant(v);
  }
  if (sizes_of_shape) {
    const auto lead = e.emit1("Slice", {e.emit1("Shape", {"pos"}), e.ci64({0}), e.ci64({2})});
    z = e.emit1("Concat", {lead, e.ci64(sizes)}, {attr("axis", int64_t{0})});
  } else if (!sizes.empty()) {
    z = e.ci64(sizes);
  }
  const auto r = e.emit1("Resize", {"pos", "", s, z}, attrs);
  const auto y = e.emit1("Add", {"x", r});
  mark_output(e, y);
  lean_graph(e.graph, w, 19);
  if (count_op(e.graph, "Resize") > 0) return std::nullopt;
  CHECK(e.ops() == std::vector<std::string>{"Add"});
  return folded_input(e.graph, y, 1).raw_data();
}

std::optional<std::vector<float>> folded_resize(const std::vector<int64_t>& dims, const std::vector<float>& values,
                                                const std::vector<float>& scales, const std::vector<int64_t>& sizes,
                                                const Attrs& attrs, bool sizes_of_shape = false) {
  const std::string raw(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  const auto r = folded_resize(onnx::TensorProto::FLOAT, dims, raw, scales, sizes, attrs, sizes_of_shape);
  if (!r) return std::nullopt;
  return floats_of(*r);
}

Attrs resize_attrs(const std::string& mode, const std::string& transform, const Attrs& more = {}) {
  Attrs a{attr("mode", mode), attr("coordinate_transformation_mode", transform)};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

}  // namespace

TEST_CASE("a linear Resize of a weight folds: half pixel, align_corners, axes, one aspect ratio") {
  // in 4, out 6, scale 1.5: source coordinates -1/6 (clamped to 0), 1/2,
  // 7/6, 11/6, 5/2, 19/6 (clamped to 3)
  const auto r = folded_resize({1, 4}, {0, 1, 3, 7}, {}, {1, 6}, resize_attrs("linear", "pytorch_half_pixel"));
  REQUIRE(r);
  CHECK(*r == std::vector<float>{0, 0.5f, static_cast<float>(4.0 / 3), static_cast<float>(8.0 / 3), 5, 7});
  const auto axes = folded_resize({1, 4}, {0, 1, 3, 7}, {}, {6},
                                  resize_attrs("linear", "half_pixel", {attr("axes", std::vector<int64_t>{-1})}));
  CHECK(axes == r);
  // 2 x 2 to 3 x 3 with the corners kept, the sizes computed from the weight's Shape
  const auto corners =
      folded_resize({1, 1, 2, 2}, {0, 1, 2, 3}, {}, {3, 3}, resize_attrs("linear", "align_corners"), true);
  REQUIRE(corners);
  CHECK(*corners == std::vector<float>{0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3});
  // sizes 4 x 3 of 2 x 2, not larger: one scale 1.5 for both axes, 3 x 3;
  // asymmetric: coordinates 0, 2/3, 4/3 (clamped to 1); the value 2 * row + column
  const auto kept = folded_resize(
      {1, 2, 2}, {0, 1, 2, 3}, {}, {4, 3},
      resize_attrs("linear", "asymmetric",
                   {attr("axes", std::vector<int64_t>{1, 2}), attr("keep_aspect_ratio_policy", std::string("not_larger"))}));
  REQUIRE(kept);
  const float third = static_cast<float>(2.0 / 3), four = static_cast<float>(4.0 / 3);
  const float seven = static_cast<float>(7.0 / 3), eight = static_cast<float>(8.0 / 3);
  CHECK(*kept == std::vector<float>{0, third, 1, four, 2, seven, 2, eight, 3});
}

TEST_CASE("a cubic Resize of a weight folds with the reference's coefficients, exclude_outside too") {
  // A delta at element 1 of 4, upsampled by 2 (pytorch_half_pixel):
  // each output is the weight of element 1 at source coordinates -1/4,
  // 1/4, ..., 13/4, the cubic kernel (a = -0.75) at distances 5/4, 3/4,
  // 1/4, 1/4, 3/4, 5/4, 7/4 and none (element 1 is out of reach).
  const auto r = folded_resize({1, 4}, {0, 1, 0, 0}, {}, {1, 8}, resize_attrs("cubic", "pytorch_half_pixel"));
  REQUIRE(r);
  CHECK(*r == std::vector<float>{-0.10546875f, 0.26171875f, 0.87890625f, 0.87890625f, 0.26171875f, -0.10546875f,
                                 -0.03515625f, 0});
  // exclude_outside: at -1/4 the taps at -2 and -1 get no weight, the
  // other two (kernel 1/4 and 5/4: 225/256 and -27/256) are renormalized
  const auto ex = folded_resize({1, 4}, {0, 1, 0, 0}, {1, 2}, {},
                                resize_attrs("cubic", "half_pixel", {attr("exclude_outside", int64_t{1})}));
  REQUIRE(ex);
  CHECK((*ex)[0] == static_cast<float>(-27.0 / 198));
  CHECK((*ex)[3] == 0.87890625f);  // at 5/4 all four taps inside: their weights sum to 1 already
}

TEST_CASE("a nearest Resize of a weight folds in every nearest_mode, from scales or sizes") {
  const std::vector<float> w{10, 11, 12, 13};
  auto nearest = [&](const std::string& how, const std::string& transform, const std::vector<float>& scales,
                     const std::vector<int64_t>& sizes) {
    return folded_resize({1, 4}, w, scales, sizes, resize_attrs("nearest", transform, {attr("nearest_mode", how)}));
  };
  // x / 1.75: 0, 0.57, 1.14, 1.71, 2.29, 2.86, 3.43
  CHECK(nearest("floor", "asymmetric", {}, {1, 7}) == std::vector<float>{10, 10, 11, 11, 12, 12, 13});
  CHECK(nearest("ceil", "asymmetric", {}, {1, 7}) == std::vector<float>{10, 11, 12, 12, 13, 13, 13});
  // halving: coordinates 0.5 and 2.5, ties
  CHECK(nearest("round_prefer_floor", "half_pixel", {1, 0.5f}, {}) == std::vector<float>{10, 12});
  CHECK(nearest("round_prefer_ceil", "half_pixel", {1, 0.5f}, {}) == std::vector<float>{11, 13});
  // scale 2.5, 10 outputs, the symmetric mode's offset 4/2 * (1 - 10 / (2.5 * 4)) = 0:
  // coordinates 0.4 x - 0.3, ties (prefer floor) at x = 2 and 7
  CHECK(nearest("round_prefer_floor", "half_pixel_symmetric", {1, 2.5f}, {}) ==
        std::vector<float>{10, 10, 10, 11, 11, 12, 12, 12, 13, 13});
}

TEST_CASE("a float16 Resize of a weight is computed in double and rounded once") {
  const std::vector<uint16_t> half{float16_bits(0.0f), float16_bits(1.0f), float16_bits(1000.0f)};
  const std::string raw(reinterpret_cast<const char*>(half.data()), half.size() * 2);
  const auto r = folded_resize(onnx::TensorProto::FLOAT16, {3}, raw, {}, {4}, resize_attrs("linear", "align_corners"));
  REQUIRE(r);
  std::vector<float> got;
  for (auto b : values_of<uint16_t>(*r)) got.push_back(float16_value(b));
  // coordinates 0, 2/3, 4/3, 2: 2/3, 1 + 999/3 = 334 (exact in float16)
  CHECK(got == std::vector<float>{0, float16_value(float16_bits(static_cast<float>(2.0 / 3))), 334, 1000});
}

TEST_CASE("a Resize outside what is evaluated stays: antialias, tf_crop_and_resize, cubic to one element") {
  const std::vector<float> w{0, 1, 3, 7};
  CHECK_FALSE(folded_resize({1, 4}, w, {}, {1, 2},
                            resize_attrs("linear", "half_pixel", {attr("antialias", int64_t{1})})));
  CHECK_FALSE(folded_resize({1, 4}, w, {}, {1, 6}, resize_attrs("linear", "tf_crop_and_resize")));
  // ONNX Runtime's coordinate is 0 there, the reference's -0.5
  CHECK_FALSE(folded_resize({1, 4}, w, {}, {1, 1}, resize_attrs("cubic", "pytorch_half_pixel")));
  // exclude_outside outside cubic: ONNX Runtime rejects the node
  CHECK_FALSE(folded_resize({1, 4}, w, {}, {1, 6},
                            resize_attrs("linear", "half_pixel", {attr("exclude_outside", int64_t{1})})));
  CHECK(folded_resize({1, 4}, w, {}, {1, 1}, resize_attrs("linear", "pytorch_half_pixel")) == std::vector<float>{0});
}

TEST_CASE("a Resize of a weight by scales whose output length is not scale * length") {
  // 3 by 1.5: floor(4.5) = 4 outputs, coordinates (x + 0.5) / 1.5 - 0.5 in
  // ONNX Runtime and the reference alike (more than one output)
  CHECK(folded_resize({1, 3}, {0, 1, 3}, {1, 1.5f}, {}, resize_attrs("linear", "pytorch_half_pixel")) ==
        std::vector<float>{0, 0.5f, static_cast<float>(4.0 / 3), static_cast<float>(8.0 / 3)});
  // one output of 1.2: ONNX Runtime's coordinate 0, the reference's 0.75
  CHECK_FALSE(folded_resize({1, 3}, {0, 1, 3}, {1, 0.4f}, {}, resize_attrs("linear", "pytorch_half_pixel")));
  // align_corners divides by 4 - 1 in ONNX Runtime, by 4.5 - 1 in the reference
  CHECK_FALSE(folded_resize({1, 3}, {0, 1, 3}, {1, 1.5f}, {}, resize_attrs("linear", "align_corners")));
}
