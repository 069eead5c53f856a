#include "scoped_model.hpp"

#include <string>
#include <vector>

#include "mx/onnx_proto.hpp"

#include "test_support.hpp"

namespace {

void add_node(onnx::GraphProto* g, const std::string& name, const std::string& op,
              const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto* n = g->add_node();
  n->set_name(name);
  n->set_op_type(op);
  for (const auto& i : inputs) n->add_input(i);
  n->add_output(output);
}

void set_float_tensor(onnx::TensorProto* t, const std::string& name) {
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(2), t->add_dims(2);
  for (int i = 0; i < 4; ++i) t->add_float_data(1.0f);
}

void add_constant(onnx::GraphProto* g, const std::string& name, const std::string& output) {
  add_node(g, name, "Constant", {}, output);
  onnx::AttributeProto* a = g->mutable_node(g->node_size() - 1)->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  set_float_tensor(a->mutable_t(), "");
}

void add_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name) {
  onnx::ValueInfoProto* v = list->Add();
  v->set_name(name);
  auto* tensor = v->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  tensor->mutable_shape()->add_dim()->set_dim_value(2);
  tensor->mutable_shape()->add_dim()->set_dim_value(2);
}

}  // namespace

mx_model* make_scoped_model() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("scoped");
  add_constant(g, "Constant_12", "c1");
  add_node(g, "Cast_3", "Cast", {"c1"}, "c1f");
  auto* to = g->mutable_node(1)->add_attribute();
  to->set_name("to"), to->set_type(onnx::AttributeProto::INT), to->set_i(onnx::TensorProto::FLOAT);
  add_node(g, "/encoder/layer.0/attention/self/query/MatMul", "MatMul", {"x", "W"}, "q");
  add_node(g, "/encoder/layer.0/attention/self/query/Add", "Add", {"q", "c1f"}, "q2");
  add_node(g, "/encoder/layer.0/attention/self/key/Mul", "Mul", {"x", "c1f"}, "k");
  add_node(g, "Add_7", "Add", {"q2", "k"}, "y");
  add_node(g, "MatMul_9", "MatMul", {"y", "W"}, "z");
  add_constant(g, "/Constant", "c2");
  set_float_tensor(g->add_initializer(), "W");
  add_value(g->mutable_input(), "x");
  add_value(g->mutable_output(), "z");
  add_value(g->mutable_output(), "c2");
  std::string bytes = model.SerializeAsString();
  mx_model* out = nullptr;
  REQUIRE_OK(mx_model_load_bytes(bytes.data(), bytes.size(), &out));
  return out;
}
