// A test emitter whose current module the test sets, and a checker run on
// a model around its graph.
#pragma once
#include "mx/onnx_proto.hpp"
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <string>
#include <vector>

#include "mx/aten_onnx/onnx_emitter.hpp"
#include "mx/aten_onnx/opset.hpp"

struct TestEmitter : mx::aten_onnx::OnnxEmitter {
  explicit TestEmitter(int opset = 17) : OnnxEmitter(opset) {}
  std::string module;
  void input(const std::string& name, int32_t dtype, const std::vector<int64_t>& dims) {
    auto* vi = graph.add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(dtype);
    for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  // Marks `value` as the output, runs shape inference + checker and returns
  // the inferred output dims.
  std::vector<int64_t> check(const std::string& value) {
    onnx::ModelProto m;
    m.set_ir_version(mx::aten_onnx::ir_version_for(opset));
    m.add_opset_import()->set_version(opset);
    *m.mutable_graph() = graph;
    m.mutable_graph()->set_name("g");
    m.mutable_graph()->add_output()->set_name(value);
    onnx::shape_inference::InferShapes(m);
    onnx::checker::check_model(m);
    for (const auto& vi : m.graph().value_info())
      if (vi.name() == value) {
        std::vector<int64_t> dims;
        for (const auto& d : vi.type().tensor_type().shape().dim()) dims.push_back(d.dim_value());
        return dims;
      }
    return {};
  }
  std::vector<std::string> ops() const {
    std::vector<std::string> out;
    for (const auto& n : graph.node()) out.push_back(n.op_type());
    return out;
  }

  std::string where() const override { return "test"; }

 protected:
  const std::string& current_module() const override { return module; }
};
