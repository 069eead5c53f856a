#include <algorithm>
#include <doctest/doctest.h>

#include "mx/aten_onnx/patterns.hpp"
#include "test_support.hpp"

using namespace mx::aten_onnx;
using Ops = std::vector<std::string>;
constexpr int32_t F = onnx::TensorProto::FLOAT;

TEST_CASE("linear: Gemm for 2-D input, MatMul + Add otherwise") {
  SUBCASE("2-D") {
    TestEmitter e;
    e.input("x", F, {4, 3});
    e.input("w", F, {5, 3});
    e.input("b", F, {5});
    std::string y = emit_linear(e, "x", 2, "w", "b");
    CHECK(e.ops() == Ops{"Gemm"});
    CHECK(e.check(y) == std::vector<int64_t>{4, 5});
  }
  SUBCASE("3-D without bias") {
    TestEmitter e;
    e.input("x", F, {2, 4, 3});
    e.input("w", F, {5, 3});
    std::string y = emit_linear(e, "x", 3, "w", "");
    CHECK(e.ops() == Ops{"Transpose", "MatMul"});
    CHECK(e.check(y) == std::vector<int64_t>{2, 4, 5});
  }
}

TEST_CASE("layer norm: one node from opset 17, decomposed before") {
  for (int opset : {14, 17}) {
    CAPTURE(opset);
    TestEmitter e(opset);
    e.input("x", F, {2, 4, 8});
    e.input("w", F, {8});
    e.input("b", F, {8});
    std::string y = emit_layer_norm(e, "x", 3, 1, "w", "b", 1e-5, F);
    if (opset == 17) CHECK(e.ops() == Ops{"LayerNormalization"});
    else CHECK(e.ops().size() > 5);
    CHECK(e.check(y) == std::vector<int64_t>{2, 4, 8});
  }
}

TEST_CASE("sdpa: boolean mask becomes additive, causal mask from the sequence lengths") {
  TestEmitter e;
  for (const char* n : {"q", "k", "v"}) e.input(n, F, {1, 2, 5, 8});
  e.input("m", onnx::TensorProto::BOOL, {1, 1, 5, 5});
  std::string y = emit_sdpa(e, "q", "k", "v", "m", onnx::TensorProto::BOOL, true, 0.125, F);
  CHECK(e.check(y) == std::vector<int64_t>{1, 2, 5, 8});
  int wheres = 0, ranges = 0;
  for (const auto& op : e.ops()) {
    wheres += op == "Where";
    ranges += op == "Range";
  }
  CHECK(wheres == 2);
  CHECK(ranges == 2);
}

TEST_CASE("gelu: erf and tanh forms type-check") {
  for (const char* approx : {"none", "tanh"}) {
    TestEmitter e;
    e.input("x", F, {3});
    std::string y = emit_gelu(e, "x", approx, F);
    CHECK(e.check(y) == std::vector<int64_t>{3});
  }
}

TEST_CASE("conv and pools") {
  TestEmitter e;
  e.input("x", F, {1, 3, 9, 9});
  e.input("w", F, {4, 3, 3, 3});
  std::string c = emit_conv(e, "x", "w", "", ConvParams{{2, 2}, {1, 1, 1, 1}, {1, 1}, 1, false, {}});
  CHECK(e.check(c) == std::vector<int64_t>{1, 4, 5, 5});
  std::string m = emit_max_pool(e, c, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, true);
  CHECK(e.check(m) == std::vector<int64_t>{1, 4, 3, 3});
  std::string a = emit_adaptive_pool(e, c, {5, 5}, {2, 3}, false);  // not divisible: ATen windows
  CHECK(e.check(a) == std::vector<int64_t>{1, 4, 2, 3});
  std::string g = emit_adaptive_pool(e, c, {5, 5}, {1, 1}, true);
  CHECK(e.graph.node(e.graph.node_size() - 1).op_type() == "GlobalMaxPool");
  CHECK(e.check(g) == std::vector<int64_t>{1, 4, 1, 1});
}

TEST_CASE("adaptive float32 averaging over static sizes: a MatMul by an averaging matrix per dim") {
  TestEmitter e;
  e.input("x", F, {2, 3, 7, 10});
  // 7 -> 3 from the left ([3, 7] x), 10 -> 4 from the right (x [10, 4]); max stays windows
  std::string a = emit_adaptive_pool(e, "x", {7, 10}, {3, 4}, false, F);
  CHECK(e.check(a) == std::vector<int64_t>{2, 3, 3, 4});
  const auto mean_ops = e.ops();
  CHECK(std::count(mean_ops.begin(), mean_ops.end(), "MatMul") == 2);
  CHECK(std::count(mean_ops.begin(), mean_ops.end(), "Slice") == 0);
  std::string m = emit_adaptive_pool(e, "x", {7, 10}, {3, 4}, true, F);
  CHECK(e.check(m) == std::vector<int64_t>{2, 3, 3, 4});
  const auto ops = e.ops();
  CHECK(std::count(ops.begin(), ops.end(), "ReduceMax") == 7);
  // float64 keeps the windows (see emit_adaptive_pool)
  TestEmitter d;
  d.input("x", onnx::TensorProto::DOUBLE, {2, 3, 7, 10});
  CHECK(d.check(emit_adaptive_pool(d, "x", {7, 10}, {3, 4}, false, onnx::TensorProto::DOUBLE)) ==
        std::vector<int64_t>{2, 3, 3, 4});
  const auto double_ops = d.ops();
  CHECK(std::count(double_ops.begin(), double_ops.end(), "MatMul") == 0);
}

TEST_CASE("adaptive pooling over dynamic sizes: window bounds at run time") {
  TestEmitter e;
  e.input("x", F, {1, 4, 5, 7});
  std::string a = emit_adaptive_pool(e, "x", {-1, -1}, {2, 3}, false);  // sizes taken as unknown
  CHECK_NOTHROW(e.check(a));  // shape inference and the checker accept it (values: ops conformance)
  const auto ops = e.ops();
  CHECK(std::count(ops.begin(), ops.end(), "Slice") == 5);
  CHECK(std::count(ops.begin(), ops.end(), "Shape") >= 1);  // the bounds read the input's size
  CHECK(std::count(ops.begin(), ops.end(), "AveragePool") == 0);
}

TEST_CASE("atan2: element-wise, broadcasting like its operands") {
  TestEmitter e;
  e.input("y", F, {2, 3});
  e.input("x", F, {3});
  std::string a = emit_atan2(e, "y", "x", F);
  CHECK(e.check(a) == std::vector<int64_t>{2, 3});
  const auto ops = e.ops();
  CHECK(std::count(ops.begin(), ops.end(), "Atan") == 1);
}

TEST_CASE("atan2 in double: float's Atan refined in double (ONNX Runtime's Atan is float-only)") {
  constexpr int32_t D = onnx::TensorProto::DOUBLE;
  TestEmitter e;
  e.input("y", D, {2, 3});
  e.input("x", D, {2, 3});
  std::string a = emit_atan2(e, "y", "x", D);
  CHECK(e.check(a) == std::vector<int64_t>{2, 3});
  const auto ops = e.ops();
  CHECK(std::count(ops.begin(), ops.end(), "Atan") == 1);
  CHECK(std::count(ops.begin(), ops.end(), "Cos") == 1);   // the refining rotation
  CHECK(std::count(ops.begin(), ops.end(), "Cast") == 2);  // to float for Atan and back
}

TEST_CASE("moments: the mean, the deviation from it and sqrt(var + eps) over the axes, kept") {
  TestEmitter e;
  e.input("x", F, {2, 3, 4});
  const Moments m = emit_moments(e, "x", {1, 2}, 1e-5, F);
  CHECK(e.check(m.mean) == std::vector<int64_t>{2, 1, 1});
  CHECK(e.check(m.deviation) == std::vector<int64_t>{2, 3, 4});
  CHECK(e.check(m.std) == std::vector<int64_t>{2, 1, 1});
  const auto ops = e.ops();
  CHECK(std::count(ops.begin(), ops.end(), "ReduceMean") == 2);
  CHECK(std::count(ops.begin(), ops.end(), "Sqrt") == 1);
}

TEST_CASE("static pads: PyTorch's pairs from the last dim backwards, a complex pair axis left alone") {
  CHECK(static_onnx_pads({1, 2}, 3) == std::vector<int64_t>{0, 0, 1, 0, 0, 2});
  CHECK(static_onnx_pads({1, 2, 3, 4}, 3) == std::vector<int64_t>{0, 3, 1, 0, 4, 2});
  CHECK(static_onnx_pads({1, 2}, 3, 1) == std::vector<int64_t>{0, 1, 0, 0, 2, 0});
}

TEST_CASE("reduce: ReduceSum takes axes as an input, the others as an attribute") {
  TestEmitter e;
  e.input("x", F, {2, 3, 4});
  std::string s = emit_reduce(e, "ReduceSum", "x", {1}, false);
  CHECK(e.graph.node(e.graph.node_size() - 1).input_size() == 2);
  CHECK(e.check(s) == std::vector<int64_t>{2, 4});
  std::string m = emit_reduce(e, "ReduceMean", "x", {2}, true);
  CHECK(e.graph.node(e.graph.node_size() - 1).input_size() == 1);
  CHECK(e.check(m) == std::vector<int64_t>{2, 3, 1});
}
