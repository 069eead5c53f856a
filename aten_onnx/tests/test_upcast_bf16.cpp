// upcast_bf16: bf16 arithmetic between Casts, data movement left alone.
#include <doctest/doctest.h>

#include "mx/aten_onnx/graph_passes.hpp"
#include "mx/onnx_proto.hpp"

using namespace mx::aten_onnx;

namespace {

void add_input(onnx::GraphProto& g, const std::string& name, int32_t type, int64_t n) {
  auto* v = g.add_input();
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(type);
  t->mutable_shape()->add_dim()->set_dim_value(n);
}

onnx::NodeProto& add_node(onnx::GraphProto& g, const std::string& op, std::vector<std::string> in,
                          const std::string& out) {
  auto* n = g.add_node();
  n->set_name("/" + out);
  n->set_op_type(op);
  for (auto& i : in) n->add_input(i);
  n->add_output(out);
  return *n;
}

}  // namespace

TEST_CASE("upcast_bf16 wraps bf16 arithmetic in Casts and leaves the rest") {
  onnx::GraphProto g;
  add_input(g, "a", onnx::TensorProto::BFLOAT16, 4);
  add_input(g, "b", onnx::TensorProto::BFLOAT16, 4);
  add_input(g, "f", onnx::TensorProto::FLOAT, 4);
  add_node(g, "Add", {"a", "b"}, "sum");      // bf16 arithmetic: wrapped
  add_node(g, "Identity", {"sum"}, "same");   // data movement: left alone
  add_node(g, "Mul", {"f", "f"}, "product");  // float32: left alone
  g.add_output()->set_name("same");
  g.add_output()->set_name("product");

  const auto added = upcast_bf16(g, 18);

  REQUIRE(added.size() == 3);  // two reads, one write
  for (const auto& n : added) CHECK(n.like == "/sum");
  std::vector<std::string> ops;
  for (const auto& n : g.node()) ops.push_back(n.op_type());
  CHECK(ops == std::vector<std::string>{"Cast", "Cast", "Add", "Cast", "Identity", "Mul"});
  const auto& add = g.node(2);
  CHECK(add.input(0) == g.node(0).output(0));
  CHECK(add.input(1) == g.node(1).output(0));
  CHECK(g.node(0).attribute(0).i() == onnx::TensorProto::FLOAT);
  CHECK(g.node(3).input(0) == add.output(0));
  CHECK(g.node(3).output(0) == "sum");  // readers of the bf16 value are unchanged
  CHECK(g.node(3).attribute(0).i() == onnx::TensorProto::BFLOAT16);
}

TEST_CASE("upcast_bf16 changes nothing in a graph without bf16") {
  onnx::GraphProto g;
  add_input(g, "f", onnx::TensorProto::FLOAT, 4);
  add_node(g, "Relu", {"f"}, "r");
  g.add_output()->set_name("r");
  const std::string before = g.SerializeAsString();
  CHECK(upcast_bf16(g, 18).empty());
  CHECK(g.SerializeAsString() == before);
}
