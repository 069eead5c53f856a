// The passes that read the program's dims (SymbolicShapes): shape glue to
// a value's own dims, a Reshape of a Reshape, a batched MatMul's
// flatten/restore Reshapes.
#include <doctest/doctest.h>

#include <algorithm>

#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/graph_passes.hpp"
#include "test_support.hpp"

using namespace mx::aten_onnx;

namespace {

SymbolicDim sym(const char* s) {
  return SymbolicDim{std::nullopt, s};
}
SymbolicDim size(int64_t n) {
  return SymbolicDim{n, ""};
}

// A float input with named dynamic dims ("" for a static one, from `dims`).
void dynamic_input(TestEmitter& e, const std::string& name, const std::vector<SymbolicDim>& dims) {
  auto* vi = e.graph.add_input();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (const auto& d : dims) {
    auto* dim = tt->mutable_shape()->add_dim();
    if (d.size) dim->set_dim_value(*d.size);
    else dim->set_dim_param(d.symbol);
  }
}

int count_op(const onnx::GraphProto& g, const std::string& op) {
  return static_cast<int>(
      std::count_if(g.node().begin(), g.node().end(), [&](const auto& n) { return n.op_type() == op; }));
}

const onnx::NodeProto* producer(const onnx::GraphProto& g, const std::string& v) {
  for (const auto& n : g.node())
    for (const auto& o : n.output())
      if (o == v) return &n;
  return nullptr;
}

}  // namespace

TEST_CASE("an Expand or a Reshape to its input's own dims is dropped, other Expands stay") {
  TestEmitter e;
  WeightMap w;
  dynamic_input(e, "x", {sym("b"), sym("s"), size(8)});
  e.module = "m";
  const auto same = e.emit1("Expand", {"x", e.shape_of("x")});
  const auto kept = e.emit1("Reshape", {same, e.shape_of("x")});
  const auto grown = e.emit1("Expand", {kept, e.ci64({2, 1, 1, 1})});  // a new leading dim
  const auto y = e.emit1("Relu", {grown});
  SymbolicShapes shapes;
  shapes["x"] = shapes[same] = shapes[kept] = {sym("b"), sym("s"), size(8)};
  shapes[grown] = shapes[y] = {size(2), sym("b"), sym("s"), size(8)};
  e.graph.add_output()->set_name(y);
  lean_graph(e.graph, w, 17, shapes);
  CHECK(count_op(e.graph, "Reshape") == 0);
  CHECK(count_op(e.graph, "Expand") == 1);
  CHECK(producer(e.graph, grown)->input(0) == "x");
  e.graph.clear_output();
  e.check(y);
}

TEST_CASE("a broadcasting op reads a scalar instead of its Expand to another operand's shape") {
  TestEmitter e;
  WeightMap w;
  dynamic_input(e, "x", {sym("b"), size(4)});
  e.module = "m";
  const auto zero = e.cscalar(0.0, onnx::TensorProto::FLOAT);
  const auto filled = e.emit1("Expand", {zero, e.shape_of("x")});
  const auto picked = e.emit1("Where", {e.emit1("Greater", {"x", zero}), filled, "x"});
  const auto scaled =
      e.emit1("Mul", {e.emit1("Expand", {e.cscalar(2.0, onnx::TensorProto::FLOAT), e.shape_of("x")}), "x"});
  e.graph.add_output()->set_name(picked);
  e.graph.add_output()->set_name(scaled);
  lean_graph(e.graph, w, 17, {});
  CHECK(producer(e.graph, picked)->input(1) != filled);
  CHECK(count_op(e.graph, "Expand") == 1);  // Mul keeps its Expand (ORT's MatMul scale fusion)
  e.graph.clear_output();
  e.check(picked);
}

TEST_CASE("a Reshape of a Reshape reshapes the first one's input when the program's dims say how") {
  TestEmitter e;
  WeightMap w;
  dynamic_input(e, "x", {sym("b"), sym("s"), size(8)});
  e.module = "m";
  const auto flat = e.emit1("Reshape", {"x", e.ci64({-1, 8})});
  const auto b = e.unsqueeze(e.dim_size("x", 0), {0}), s = e.unsqueeze(e.dim_size("x", 1), {0});
  const auto heads =
      e.emit1("Reshape", {flat, e.emit1("Concat", {b, s, e.ci64({2, 4})}, {attr("axis", int64_t{0})})});
  e.graph.add_output()->set_name(heads);
  SymbolicShapes shapes;
  shapes["x"] = {sym("b"), sym("s"), size(8)};
  shapes[flat] = {sym("b*s"), size(8)};
  shapes[heads] = {sym("b"), sym("s"), size(2), size(4)};
  lean_graph(e.graph, w, 17, shapes);
  REQUIRE(count_op(e.graph, "Reshape") == 1);
  CHECK(producer(e.graph, heads)->input(0) == "x");
  e.graph.clear_output();
  CHECK(e.check(heads).size() == 4);
}

TEST_CASE("a bmm between Reshapes that flatten and restore the batch dims is one batched MatMul") {
  TestEmitter e;
  WeightMap w;
  dynamic_input(e, "q", {sym("b"), size(2), sym("s"), size(4)});
  dynamic_input(e, "k", {sym("b"), size(2), size(4), sym("s")});
  e.module = "attn";
  const auto q3 = e.emit1("Reshape", {"q", e.ci64({-1, 0, 4})});
  const auto k3 = e.emit1("Reshape", {"k", e.ci64({-1, 4, 0})});
  const auto mm = e.emit1("MatMul", {q3, k3});
  const auto scores = e.emit1("Reshape", {mm, e.ci64({-1, 2, 0, 0})});
  const auto p = e.emit1("Softmax", {scores});
  SymbolicShapes shapes;
  shapes["q"] = {sym("b"), size(2), sym("s"), size(4)};
  shapes["k"] = {sym("b"), size(2), size(4), sym("s")};
  shapes[q3] = {sym("2*b"), sym("s"), size(4)};
  shapes[k3] = {sym("2*b"), size(4), sym("s")};
  shapes[mm] = {sym("2*b"), sym("s"), sym("s")};
  shapes[scores] = shapes[p] = {sym("b"), size(2), sym("s"), sym("s")};
  e.graph.add_output()->set_name(p);
  lean_graph(e.graph, w, 17, shapes);
  CHECK(count_op(e.graph, "Reshape") == 0);
  const auto* batched = producer(e.graph, scores);
  REQUIRE(batched);
  CHECK(batched->op_type() == "MatMul");
  CHECK(batched->input(0) == "q");
  CHECK(batched->input(1) == "k");
  e.graph.clear_output();
  e.check(p);
}

TEST_CASE("a bmm whose Reshapes regroup more than the batch dims keeps them") {
  TestEmitter e;
  WeightMap w;
  dynamic_input(e, "q", {sym("b"), size(2), sym("s"), size(4)});
  dynamic_input(e, "k", {sym("b"), size(8), sym("s")});  // not [b, 2, 4, s]
  e.module = "attn";
  const auto q3 = e.emit1("Reshape", {"q", e.ci64({-1, 0, 4})});
  const auto k3 = e.emit1("Reshape", {"k", e.ci64({-1, 4, 0})});
  const auto scores = e.emit1("Reshape", {e.emit1("MatMul", {q3, k3}), e.ci64({-1, 2, 0, 0})});
  SymbolicShapes shapes;
  shapes["q"] = {sym("b"), size(2), sym("s"), size(4)};
  shapes["k"] = {sym("b"), size(8), sym("s")};
  shapes[q3] = {sym("2*b"), sym("s"), size(4)};
  shapes[k3] = {sym("2*b"), size(4), sym("s")};
  shapes[scores] = {sym("b"), size(2), sym("s"), sym("s")};
  e.graph.add_output()->set_name(scores);
  lean_graph(e.graph, w, 17, shapes);
  CHECK(count_op(e.graph, "Reshape") == 3);
}

// A [4, 3] weight "w" stored as an initializer of zeros.
void weight_4x3(TestEmitter& e, int32_t dtype = onnx::TensorProto::FLOAT) {
  auto* weight = e.graph.add_initializer();
  weight->set_name("w");
  weight->set_data_type(dtype);
  weight->add_dims(4);
  weight->add_dims(3);
  weight->set_raw_data(std::string(12 * element_size(dtype), '\0'));
}

// Core ATen's Linear before its view back: x [b, s, 4] flattened to
// [b*s, 4] and multiplied by "w" (a MatMul; with `bias`, addmm's Gemm
// adding the [3] initializer "bias"), the program's dims in `shapes`;
// returns the product.
std::string flat_linear(TestEmitter& e, SymbolicShapes& shapes, int32_t dtype = onnx::TensorProto::FLOAT,
                        bool bias = false) {
  dynamic_input(e, "x", {sym("b"), sym("s"), size(4)});
  e.module = "proj";
  weight_4x3(e, dtype);
  const auto rows = e.emit1("Reshape", {"x", e.ci64({-1, 4})});
  std::string mm;
  if (bias) {
    auto* b = e.graph.add_initializer();
    b->set_name("bias");
    b->set_data_type(dtype);
    b->add_dims(3);
    b->set_raw_data(std::string(3 * element_size(dtype), '\0'));
    mm = e.emit1("Gemm", {rows, "w", "bias"}, {attr("alpha", 1.0f), attr("beta", 1.0f)});
  } else {
    mm = e.emit1("MatMul", {rows, "w"});
  }
  shapes["x"] = {sym("b"), sym("s"), size(4)};
  shapes[rows] = {sym("b*s"), size(4)};
  shapes[mm] = {sym("b*s"), size(3)};
  return mm;
}

TEST_CASE("a Linear's view, mm and view back is one MatMul of the activation") {
  TestEmitter e;
  WeightMap w;
  SymbolicShapes shapes;
  const auto mm = flat_linear(e, shapes);
  const auto lead = e.emit1("Shape", {"x"}, {attr("start", int64_t{0}), attr("end", int64_t{2})});
  const auto y = e.emit1("Reshape", {mm, e.emit1("Concat", {lead, e.ci64({3})}, {attr("axis", int64_t{0})})});
  const auto z = e.emit1("Relu", {y});
  shapes["w"] = {size(3), size(4)};  // the parameter's dims: stored permuted, the initializer says [4, 3]
  shapes[y] = shapes[z] = {sym("b"), sym("s"), size(3)};
  e.graph.add_output()->set_name(z);
  lean_graph(e.graph, w, 17, shapes);
  CHECK(count_op(e.graph, "Reshape") == 0);
  const auto* linear = producer(e.graph, y);
  REQUIRE(linear);
  CHECK(linear->op_type() == "MatMul");
  CHECK(linear->input(0) == "x");
  CHECK(linear->input(1) == "w");
  e.graph.clear_output();
  e.check(z);
}

TEST_CASE("a Linear with a bias (addmm's Gemm between the Reshapes) is a MatMul and an Add") {
  TestEmitter e;
  WeightMap w;
  SymbolicShapes shapes;
  const auto mm = flat_linear(e, shapes, onnx::TensorProto::FLOAT, true);
  const auto y = e.emit1("Reshape", {mm, e.ci64({0, -1, 3})});
  const auto z = e.emit1("Relu", {y});
  shapes[y] = shapes[z] = {sym("b"), sym("s"), size(3)};
  e.graph.add_output()->set_name(z);
  lean_graph(e.graph, w, 17, shapes);
  CHECK(count_op(e.graph, "Reshape") == 0);
  CHECK(count_op(e.graph, "Gemm") == 0);
  const auto* add = producer(e.graph, y);
  REQUIRE(add);
  CHECK(add->op_type() == "Add");
  const auto* product = producer(e.graph, add->input(0));
  REQUIRE(product);
  CHECK(product->op_type() == "MatMul");
  CHECK(product->input(0) == "x");
  CHECK(add->input(1) == "bias");
  e.graph.clear_output();
  e.check(z);
}

TEST_CASE("a float16 Linear keeps its Reshapes (ONNX Runtime's Nchwc crash)") {
  TestEmitter e;
  WeightMap w;
  SymbolicShapes shapes;
  const auto mm = flat_linear(e, shapes, onnx::TensorProto::FLOAT16);
  const auto y = e.emit1("Reshape", {mm, e.ci64({0, -1, 3})});
  shapes["w"] = {size(4), size(3)};
  shapes[y] = {sym("b"), sym("s"), size(3)};
  e.graph.add_output()->set_name(y);
  lean_graph(e.graph, w, 17, shapes);
  CHECK(count_op(e.graph, "Reshape") == 2);
}

TEST_CASE("a Linear's Reshapes that regroup rows otherwise stay") {
  TestEmitter e;
  WeightMap w;
  SymbolicShapes shapes;
  const auto mm = flat_linear(e, shapes);
  const auto y = e.emit1("Reshape", {mm, e.ci64({0, -1, 3})});
  shapes[y] = {sym("s"), sym("b"), size(3)};  // back to [s, b, 3]: not x's leading dims
  e.graph.add_output()->set_name(y);
  lean_graph(e.graph, w, 17, shapes);
  CHECK(count_op(e.graph, "Reshape") == 2);
}

TEST_CASE("a MatMul reads a weight, not its Expand to the activation's batch dims") {
  TestEmitter e;
  WeightMap w;
  dynamic_input(e, "x", {sym("b"), sym("s"), size(4)});
  e.module = "proj";
  weight_4x3(e);
  const auto shape =
      e.emit1("Concat", {e.unsqueeze(e.dim_size("x", 0), {0}), e.ci64({4, 3})}, {attr("axis", int64_t{0})});
  const auto batched = e.emit1("Expand", {"w", shape});
  const auto y = e.emit1("MatMul", {"x", batched});
  const auto z = e.emit1("MatMul", {"x", e.emit1("Expand", {"w", e.ci64({2, 1, 4, 3})})});  // a new batch dim
  SymbolicShapes shapes;
  shapes["x"] = {sym("b"), sym("s"), size(4)};
  shapes[batched] = {sym("b"), size(4), size(3)};
  shapes[y] = {sym("b"), sym("s"), size(3)};
  e.graph.add_output()->set_name(y);
  e.graph.add_output()->set_name(z);
  lean_graph(e.graph, w, 17, shapes);
  CHECK(producer(e.graph, y)->input(1) == "w");
  CHECK(producer(e.graph, z)->input(1) != "w");
  CHECK(count_op(e.graph, "Expand") == 1);
  e.graph.clear_output();
  CHECK(e.check(y) == std::vector<int64_t>{0, 0, 3});
}
