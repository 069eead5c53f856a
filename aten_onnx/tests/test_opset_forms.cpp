// The opset-dependent forms the emitter writes (opset_forms.cpp), the IR
// version of each opset, the fused ops and the RMSNorm fusion: each node
// checked by the ONNX library's checker and shape inference at its opset.
#include <doctest/doctest.h>

#include "mx/aten_onnx/error.hpp"
#include "mx/aten_onnx/graph_passes.hpp"
#include "mx/aten_onnx/opset.hpp"
#include "mx/aten_onnx/patterns.hpp"
#include "test_support.hpp"

using namespace mx::aten_onnx;
using Ops = std::vector<std::string>;
constexpr int32_t F = onnx::TensorProto::FLOAT;

namespace {

bool has_attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return true;
  return false;
}

const onnx::NodeProto& last(const TestEmitter& e) {
  return e.graph.node(e.graph.node_size() - 1);
}

}  // namespace

TEST_CASE("opsets: 14 to the library's newest, IR version by opset") {
  CHECK(kMinOpset == 14);
  CHECK(max_opset() >= 28);
  CHECK(ir_version_for(14) == 8);
  CHECK(ir_version_for(18) == 8);
  CHECK(ir_version_for(20) == 9);
  CHECK(ir_version_for(21) == 10);
  CHECK(ir_version_for(23) == 11);
  CHECK(ir_version_for(28) == 14);
  CHECK_NOTHROW(require_supported_opset(kDefaultOpset));
  CHECK_THROWS_WITH_AS(require_supported_opset(13), doctest::Contains("from 14 to"), Error);
  CHECK_THROWS_AS(require_supported_opset(max_opset() + 1), Error);
}

TEST_CASE("reductions: axes attribute up to 17, input from 18") {
  for (int opset : {17, 18, 28}) {
    CAPTURE(opset);
    TestEmitter e(opset);
    e.input("x", F, {2, 3, 4});
    std::string y =
        e.emit1("ReduceMean", {"x"}, {attr("axes", std::vector<int64_t>{-1}), attr("keepdims", int64_t{1})});
    const auto& n = last(e);
    CHECK(has_attr(n, "axes") == (opset < 18));
    CHECK(n.input_size() == (opset < 18 ? 1 : 2));
    CHECK(e.check(y) == std::vector<int64_t>{2, 3, 1});
  }
}

TEST_CASE("split without sizes states num_outputs from 18") {
  for (int opset : {17, 18}) {
    TestEmitter e(opset);
    e.input("x", F, {2, 6});
    auto parts = e.emit("Split", {"x"}, {attr("axis", int64_t{1})}, 2);
    CHECK(has_attr(last(e), "num_outputs") == (opset >= 18));
    CHECK(e.check(parts[1]) == std::vector<int64_t>{2, 3});
  }
}

TEST_CASE("grid sample modes and DFT axis change at 20") {
  for (int opset : {17, 20}) {
    CAPTURE(opset);
    TestEmitter e(opset);
    e.input("x", F, {1, 2, 4, 4});
    e.input("g", F, {1, 3, 3, 2});
    std::string y = e.emit1("GridSample", {"x", "g"}, {attr("mode", std::string("bilinear"))});
    CHECK(last(e).attribute(0).s() == (opset >= 20 ? "linear" : "bilinear"));
    CHECK(e.check(y) == std::vector<int64_t>{1, 2, 3, 3});
    TestEmitter d(opset);
    d.input("s", F, {2, 8, 1});
    std::string spec = d.emit1("DFT", {"s"}, {attr("axis", int64_t{1}), attr("onesided", int64_t{1})});
    CHECK(last(d).input_size() == (opset >= 20 ? 3 : 1));
    CHECK(d.check(spec) == std::vector<int64_t>{2, 5, 2});
  }
}

TEST_CASE("fused ops: Gelu 20+, GroupNormalization 21+, Attention 23+, and off on request") {
  TestEmitter gelu(20);
  gelu.input("x", F, {2, 3});
  gelu.check(emit_gelu(gelu, "x", "tanh", F));
  CHECK(gelu.ops() == Ops{"Gelu"});
  TestEmitter group(21);
  group.input("x", F, {2, 4, 3});
  group.input("w", F, {4});
  const std::string g = emit_group_norm(group, "x", 3, 2, "w", "", 1e-5, F);
  CHECK(group.ops().back() == "GroupNormalization");
  // A function op: inference gives its output a type, not a shape.
  auto* out = group.graph.add_output();
  out->set_name(g);
  out->mutable_type()->mutable_tensor_type()->set_elem_type(F);
  for (int64_t d : {2, 4, 3})
    out->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
  onnx::ModelProto m;
  m.set_ir_version(ir_version_for(21));
  m.add_opset_import()->set_version(21);
  *m.mutable_graph() = group.graph;
  m.mutable_graph()->set_name("g");
  CHECK_NOTHROW(onnx::checker::check_model(m, true));
  TestEmitter att(23);
  for (const char* v : {"q", "k", "v"}) att.input(v, F, {1, 2, 5, 8});
  CHECK(att.check(emit_sdpa(att, "q", "k", "v", "", 0, true, 0.35, F)) == std::vector<int64_t>{1, 2, 5, 8});
  CHECK(att.ops() == Ops{"Attention"});
  TestEmitter off(23);
  off.fused_ops = false;
  off.input("x", F, {2, 3});
  off.check(emit_gelu(off, "x", "none", F));
  CHECK(off.ops().size() > 1);
}

TEST_CASE("RMSNorm arithmetic becomes one RMSNormalization in its module") {
  TestEmitter e(23);
  e.module = "model.norm";
  e.input("x", F, {2, 3, 8});
  e.input("w", F, {8});
  const std::string mean = e.emit1("ReduceMean", {e.emit1("Mul", {"x", "x"})},
                                   {attr("axes", std::vector<int64_t>{2}), attr("keepdims", int64_t{1})});
  const std::string r =
      e.emit1("Reciprocal", {e.emit1("Sqrt", {e.emit1("Add", {mean, e.cscalar(1e-6, F)})})});
  const std::string y = e.emit1("Mul", {"w", e.emit1("Mul", {"x", r})});
  e.graph.add_output()->set_name(y);
  WeightMap weights;
  const PassReport report = lean_graph(e.graph, weights, 23, {{"x", std::vector<SymbolicDim>(3)}});
  CHECK(e.ops() == Ops{"RMSNormalization"});
  CHECK(e.graph.node(0).name() == "/model/norm/Mul_2");
  CHECK(report.removed.size() >= 6);
  e.graph.clear_output();
  CHECK(e.check(y) == std::vector<int64_t>{2, 3, 8});
}
