#include <doctest/doctest.h>

#include <algorithm>
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

void mark_output(TestEmitter& e, const std::string& v) { e.graph.add_output()->set_name(v); }

int count_op(const onnx::GraphProto& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.node()) n += node.op_type() == op;
  return n;
}

std::vector<float> floats_of(const std::string& raw) {
  std::vector<float> v(raw.size() / sizeof(float));
  std::memcpy(v.data(), raw.data(), raw.size());
  return v;
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
    for (int o = 0; o < 5; ++o) CHECK(out[static_cast<size_t>(i * 5 + o)] == bytes[static_cast<size_t>(o * 4 + i)]);
}

TEST_CASE("a weight with another reader than the Transpose keeps its layout") {
  TestEmitter e;
  WeightMap w;
  e.input("x", onnx::TensorProto::FLOAT, {2, 3, 4});
  const auto bytes = iota_floats(4 * 4);
  add_weight(e, w, "w", {4, 4}, bytes);
  const auto y = emit_linear(e, "x", 3, "w", "");
  mark_output(e, e.emit1("Add", {y, e.emit1("ReduceSum", {"w"})}));
  const auto report = lean_graph(e.graph, w, 17);
  CHECK(report.stored_permuted.empty());
  CHECK(count_op(e.graph, "Transpose") == 1);
  CHECK_FALSE(w.at("w").permuted.has_value());
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
      for (int64_t r = 0; r < rows; ++r) same &= out[static_cast<size_t>(c * rows + r)] == bytes[static_cast<size_t>(r * cols + c)];
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
        for (int j = 0; j < 3; ++j) CHECK(out[static_cast<size_t>((k * 2 + i) * 3 + j)] == bytes[static_cast<size_t>((i * 3 + j) * 4 + k)]);
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
