#include <doctest/doctest.h>

#include <cstring>
#include <stdexcept>

#include "mx/aten_onnx/attributes.hpp"
#include "test_support.hpp"

using namespace mx::aten_onnx;

TEST_CASE("node names follow torch.onnx scopes and every node is recorded in its module") {
  TestEmitter e;
  e.input("x", onnx::TensorProto::FLOAT, {2, 3});
  e.module = "encoder.layer.0.attention";
  std::string a = e.emit1("Relu", {"x"});
  std::string b = e.emit1("Relu", {a});
  CHECK(e.graph.node(0).name() == "/encoder/layer.0/attention/Relu");
  CHECK(e.graph.node(1).name() == "/encoder/layer.0/attention/Relu_1");
  CHECK(a == "/encoder/layer.0/attention/Relu_output_0");
  e.module = "";
  e.emit1("Relu", {b});
  CHECK(e.graph.node(2).name() == "/Relu");
  REQUIRE(e.records.size() == 3);
  CHECK(e.records[0].module == "encoder.layer.0.attention");
  CHECK(e.records[2].module == "");
  CHECK(e.records[2].evidence == "direct");
}

TEST_CASE("scope_prefix glues list items to their container") {
  CHECK(scope_prefix("") == "");
  CHECK(scope_prefix("layers.0.mlp") == "/layers.0/mlp");
  CHECK(scope_prefix("0.conv") == "/0/conv");
}

TEST_CASE("small constants are emitted once per module") {
  TestEmitter e;
  e.module = "a";
  std::string c1 = e.ci64({1, 2});
  std::string c2 = e.ci64({1, 2});
  CHECK(c1 == c2);
  e.module = "b";
  std::string c3 = e.ci64({1, 2});
  CHECK(c3 != c1);
  CHECK(e.records.back().module == "b");
  CHECK(e.graph.node_size() == 2);
}

TEST_CASE("a body is built in a graph of its own, its nodes recorded through the node that holds it") {
  constexpr int32_t F = onnx::TensorProto::FLOAT;
  TestEmitter e;
  e.input("x", F, {2, 3});
  e.module = "block";
  const std::string outer = e.ci64({1});
  const size_t records = e.records.size();
  onnx::GraphProto body = e.body_graph("Scan", "step", {{"h", F, {-1, 3}}, {"t", F, {}, false}}, [&] {
    std::vector<OnnxEmitter::BodyValue> outs;
    outs.push_back({e.emit1("Relu", {"h"}), F, {-1, 3}});
    outs.push_back({e.emit1("Identity", {e.ci64({1})}), onnx::TensorProto::INT64, {}, false});
    return outs;
  });
  CHECK(body.name() == "step");
  REQUIRE(body.input_size() == 2);
  CHECK(body.input(0).type().tensor_type().shape().dim_size() == 2);
  CHECK(!body.input(0).type().tensor_type().shape().dim(0).has_dim_value());
  CHECK(body.input(0).type().tensor_type().shape().dim(1).dim_value() == 3);
  CHECK(!body.input(1).type().tensor_type().has_shape());
  REQUIRE(body.output_size() == 2);
  CHECK(body.output(1).type().tensor_type().elem_type() == onnx::TensorProto::INT64);
  CHECK(body.node_size() == 3);  // the body's own constant: outer ones are not shared
  CHECK(e.records.size() == records);
  CHECK(e.graph.node_size() == 1);
  CHECK(e.ci64({1}) == outer);
}

TEST_CASE("a body that throws leaves the emitter as it was; bf16 through a body needs opset 16") {
  constexpr int32_t F = onnx::TensorProto::FLOAT;
  TestEmitter e(14);
  e.input("x", F, {2, 3});
  e.emit1("Relu", {"x"});
  auto failing = [&] {
    e.emit1("Relu", {"x"});
    throw std::runtime_error("inside");
    return std::vector<OnnxEmitter::BodyValue>{};
  };
  CHECK_THROWS_WITH(e.body_graph("If", "then", {}, failing), "inside");
  CHECK(e.graph.node_size() == 1);
  CHECK(e.records.size() == 1);
  auto bf16_out = [&] {
    return std::vector<OnnxEmitter::BodyValue>{{e.emit1("Identity", {"x"}), onnx::TensorProto::BFLOAT16}};
  };
  CHECK_THROWS_WITH(e.body_graph("If", "then", {}, bf16_out),
                    "unsupported: bf16 values through an ONNX If need ONNX opset 16 at test");
  CHECK_THROWS_WITH(e.body_graph("Loop", "body", {{"c", onnx::TensorProto::BFLOAT16}}, bf16_out),
                    "unsupported: bf16 values through an ONNX Loop need ONNX opset 16 at test");
  CHECK(e.graph.node_size() == 1);
  TestEmitter e16(16);
  CHECK(e16.body_graph("If", "then", {},
                       [&] {
                         return std::vector<OnnxEmitter::BodyValue>{
                             {e16.emit1("Identity", {"x"}), onnx::TensorProto::BFLOAT16}};
                       })
            .output_size() == 1);
}

TEST_CASE("filled tensors convert like a C++ cast, half precision rounded to nearest") {
  auto bits16 = [](const onnx::TensorProto& t) {
    uint16_t v;
    std::memcpy(&v, t.raw_data().data(), 2);
    return v;
  };
  CHECK(bits16(filled_tensor(onnx::TensorProto::FLOAT16, {}, 1.0)) == 0x3c00);
  CHECK(bits16(filled_tensor(onnx::TensorProto::FLOAT16, {}, 0.1)) == 0x2e66);
  CHECK(bits16(filled_tensor(onnx::TensorProto::FLOAT16, {}, -65504.0)) == 0xfbff);
  CHECK(bits16(filled_tensor(onnx::TensorProto::FLOAT16, {}, 1e6)) == 0x7c00);
  CHECK(bits16(filled_tensor(onnx::TensorProto::BFLOAT16, {}, 1.0)) == 0x3f80);
  auto t = filled_tensor(onnx::TensorProto::INT64, {2, 2}, 7.9);
  CHECK(t.raw_data().size() == 32);
  int64_t v;
  std::memcpy(&v, t.raw_data().data() + 24, 8);
  CHECK(v == 7);
  CHECK_THROWS(filled_tensor(onnx::TensorProto::STRING, {}, 1.0));
}

TEST_CASE("cast of a value to its own type emits nothing") {
  TestEmitter e;
  CHECK(e.cast("x", onnx::TensorProto::FLOAT, onnx::TensorProto::FLOAT) == "x");
  CHECK(e.graph.node_size() == 0);
  e.cast("x", onnx::TensorProto::FLOAT, onnx::TensorProto::INT64);
  CHECK(e.ops() == std::vector<std::string>{"Cast"});
}

TEST_CASE("constants built from typed fields are shared only when their values agree") {
  TestEmitter e;
  auto pairs = [](std::vector<int64_t> v) {
    onnx::TensorProto t;  // int64_data, no raw_data (as GatherND index tables are built)
    t.set_data_type(onnx::TensorProto::INT64);
    t.add_dims(static_cast<int64_t>(v.size() / 2));
    t.add_dims(2);
    for (auto x : v) t.add_int64_data(x);
    return t;
  };
  const std::string diag = e.constant(pairs({0, 0, 1, 1}));
  const std::string above = e.constant(pairs({0, 1, 1, 2}));
  CHECK(diag != above);
  CHECK(e.constant(pairs({0, 1, 1, 2})) == above);
}
