// A synthetic model named the way the TorchScript exporter names nodes, of
// any size: `layers` repetitions of
//   /encoder/layer.K/dense/MatMul  (weight encoder.layer.K.dense.weight)
//   Constant_K                     (scope-less glue)
//   Add_K                          (scope-less)
//   /encoder/layer.K/act/Relu
// i.e. 4 nodes per layer. Used by tests/concurrency (different models per
// thread) and benchmarks/tagging_scale.cpp (200,000+ nodes). Header-only so
// the benchmark can include it without a library.
#pragma once
#include <string>

#include "mx/onnx_proto.hpp"

namespace synthetic {

inline onnx::ModelProto scoped_model(int layers, int width = 8, const std::string& tag = "") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("synthetic" + tag);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("synthetic" + tag);
  auto value = [&](onnx::ValueInfoProto* v, const std::string& name) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("N");
    t->mutable_shape()->add_dim()->set_dim_value(width);
  };
  value(g->add_input(), "x0");
  std::string x = "x0";
  for (int k = 0; k < layers; ++k) {
    const std::string K = std::to_string(k);
    const std::string scope = "/encoder/layer." + K;
    auto* w = g->add_initializer();
    w->set_name("encoder.layer." + K + ".dense.weight");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(width);
    w->add_dims(width);
    for (int i = 0; i < width * width; ++i) w->add_float_data(static_cast<float>((i + k) % 5) * 0.1f);
    auto node = [&](const std::string& name, const char* op) {
      auto* n = g->add_node();
      n->set_name(name);
      n->set_op_type(op);
      return n;
    };
    auto* mm = node(scope + "/dense/MatMul", "MatMul");
    mm->add_input(x);
    mm->add_input(w->name());
    mm->add_output("m" + K);
    auto* c = node("Constant_" + K, "Constant");
    c->add_output("c" + K);
    auto* attr = c->add_attribute();
    attr->set_name("value");
    attr->set_type(onnx::AttributeProto::TENSOR);
    attr->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
    attr->mutable_t()->add_float_data(0.5f);
    auto* add = node("Add_" + K, "Add");
    add->add_input("m" + K);
    add->add_input("c" + K);
    add->add_output("a" + K);
    auto* relu = node(scope + "/act/Relu", "Relu");
    relu->add_input("a" + K);
    x = "x" + std::to_string(k + 1);
    relu->add_output(x);
  }
  value(g->add_output(), x);
  return m;
}

}  // namespace synthetic
