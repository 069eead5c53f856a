#include "fixture_model.hpp"

#include <stdexcept>

namespace mx::testing {

void add_tensor_value(onnx::ValueInfoProto* v, const std::string& name,
                      std::initializer_list<const char*> dims) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (const char* d : dims) {
    auto* dim = t->mutable_shape()->add_dim();
    if (d[0] >= '0' && d[0] <= '9') dim->set_dim_value(std::stoll(d));
    else dim->set_dim_param(d);
  }
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& name, const std::string& op,
                          std::initializer_list<const char*> in, std::initializer_list<const char*> out) {
  auto* n = g->add_node();
  n->set_name(name);
  n->set_op_type(op);
  for (const char* i : in) n->add_input(i);
  for (const char* o : out) n->add_output(o);
  return n;
}

namespace {

void add_initializer(onnx::GraphProto* g, const std::string& name, std::initializer_list<int64_t> dims) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (auto d : dims) {
    t->add_dims(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) t->add_float_data(0.1f * static_cast<float>(i % 7) - 0.2f);
}

onnx::ModelProto skeleton() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("modelexport-tests");
  m.add_opset_import()->set_version(17);
  m.mutable_graph()->set_name("tiny_net");
  return m;
}

}  // namespace

onnx::ModelProto tiny_net() {
  onnx::ModelProto m = skeleton();
  auto* g = m.mutable_graph();
  add_tensor_value(g->add_input(), "X", {"N", "4"});
  add_tensor_value(g->add_output(), "Y", {"N", "3"});
  add_initializer(g, "fc.weight", {4, 3});
  add_initializer(g, "fc.bias", {3});
  add_node(g, "/fc/MatMul", "MatMul", {"X", "fc.weight"}, {"h"});
  add_node(g, "/fc/Add", "Add", {"h", "fc.bias"}, {"z"});
  add_node(g, "/act/Relu", "Relu", {"z"}, {"Y"});
  return m;
}

std::string tiny_net_bytes() {
  return tiny_net().SerializeAsString();
}

std::string tiny_net_hierarchy() {
  return R"({"schema": "modelexport.hierarchy/1",
  "producer": {"name": "modelexport", "version": "0.1.0", "source": "tests"},
  "model": {"root_class": "TinyNet"},
  "modules": [
    {"path": "", "class": "TinyNet", "qualified_class": "__main__.TinyNet", "parent": null,
     "children": ["fc", "act"], "parameters": 15, "own_parameters": 0,
     "executed": true, "execution_order": 0},
    {"path": "fc", "class": "Linear", "qualified_class": "torch.nn.modules.linear.Linear",
     "parent": "", "children": [], "parameters": 15, "own_parameters": 15,
     "executed": true, "execution_order": 1},
    {"path": "act", "class": "ReLU", "qualified_class": "torch.nn.modules.activation.ReLU",
     "parent": "", "children": [], "parameters": 0, "own_parameters": 0,
     "executed": true, "execution_order": 2}],
  "nodes": [
    {"name": "/fc/MatMul", "module": "fc", "evidence": "direct"},
    {"name": "/fc/Add", "module": "fc", "evidence": "direct"},
    {"name": "/act/Relu", "module": "act", "evidence": "propagated"}]})";
}

onnx::ModelProto invalid_net() {
  onnx::ModelProto m = skeleton();
  auto* g = m.mutable_graph();
  add_tensor_value(g->add_input(), "X", {"N", "4"});
  add_tensor_value(g->add_output(), "Y", {"N", "4"});
  add_node(g, "broken_relu", "Relu", {}, {"Y"});
  return m;
}

onnx::ModelProto broken_net(const std::string& defect, int64_t ir, int64_t opset) {
  onnx::ModelProto m = tiny_net();
  m.set_ir_version(ir);
  m.mutable_opset_import(0)->set_version(opset);
  auto* g = m.mutable_graph();
  if (defect == "cycle") {
    g->mutable_node(1)->set_input(1, "Y");
  } else if (defect == "undefined") {
    g->mutable_node(1)->set_input(1, "ghost");
  } else if (defect == "duplicate") {
    add_node(g, "/fc/Shadow", "Identity", {"X"}, {"h"});
  } else {
    throw std::invalid_argument("broken_net: unknown defect '" + defect + "'");
  }
  return m;
}

onnx::ModelProto chain_net(const std::vector<NodeValues>& nodes) {
  onnx::ModelProto m;
  auto* g = m.mutable_graph();
  g->add_input()->set_name("x");
  g->add_initializer()->set_name("w");
  for (const auto& [in, out] : nodes) {
    auto* n = g->add_node();
    n->set_op_type("Op");
    for (const auto& v : in) n->add_input(v);
    for (const auto& v : out) n->add_output(v);
  }
  return m;
}

}  // namespace mx::testing
