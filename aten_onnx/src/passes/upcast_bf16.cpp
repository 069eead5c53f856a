// bf16 arithmetic in float32, for runtimes without bf16 kernels (ONNX
// Runtime's CPU provider has none for MatMul, Add, Mul, Softmax, ...).
// Every node that computes on bf16 values reads them through a Cast to
// float32 and writes a float32 result that a Cast rounds back to bf16.
// That is what PyTorch's CPU kernels do for bf16 (compute in float, round
// each op's result), so the file still computes the program's bf16
// values; its inputs, outputs and weights keep their bf16 type. Ops that
// only move or reinterpret data work on any type and are left alone. The
// bodies of If, Loop and Scan are rewritten the same way (a bf16 LSTM with
// a projection is a Scan; torch.cond is an If).
#include "mx/onnx_proto.hpp"

#include <onnx/shape_inference/implementation.h>

#include <set>
#include <unordered_map>

#include "mx/aten_onnx/graph_passes.hpp"
#include "mx/aten_onnx/opset.hpp"

namespace mx::aten_onnx {
namespace {

constexpr int32_t kBf16 = onnx::TensorProto::BFLOAT16;
constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

bool moves_data_only(const std::string& op) {
  // If/Loop/Scan pass values to their bodies, which are rewritten themselves.
  static const std::set<std::string> ops = {
      "Cast",      "Identity", "Shape", "Size",  "Reshape", "Squeeze", "Unsqueeze", "Flatten", "Constant",
      "Transpose", "Concat",   "Slice", "Split", "Gather",  "If",      "Loop",      "Scan"};
  return ops.count(op) > 0;
}

using ValueTypes = std::unordered_map<std::string, int32_t>;

// The types a graph declares (inputs, value_info, outputs, initializers),
// and those of its nodes' bodies: shape inference types values inside
// bodies there, and a body sees its enclosing graphs' values.
void collect_types(const onnx::GraphProto& g, ValueTypes& types) {
  auto note = [&](const onnx::ValueInfoProto& v) {
    if (v.type().has_tensor_type()) types[v.name()] = v.type().tensor_type().elem_type();
  };
  for (const auto& v : g.input()) note(v);
  for (const auto& v : g.value_info()) note(v);
  for (const auto& v : g.output()) note(v);
  for (const auto& t : g.initializer()) types[t.name()] = t.data_type();
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_types(a.g(), types);
      for (const auto& body : a.graphs()) collect_types(body, types);
    }
}

// Element types of every value ONNX shape inference can type.
ValueTypes value_types(const onnx::GraphProto& g, int opset) {
  onnx::ModelProto m;
  m.set_ir_version(ir_version_for(opset));
  auto* imp = m.add_opset_import();
  imp->set_domain("");
  imp->set_version(opset);
  *m.mutable_graph() = g;
  try {
    onnx::shape_inference::InferShapes(m);
  } catch (const std::exception&) {  // partial types are enough: untyped values are left alone
  }
  ValueTypes types;
  collect_types(m.graph(), types);
  return types;
}

onnx::NodeProto cast_node(const std::string& name, const std::string& in, const std::string& out,
                          int32_t to) {
  onnx::NodeProto c;
  c.set_name(name);
  c.set_op_type("Cast");
  c.add_input(in);
  c.add_output(out);
  auto* a = c.add_attribute();
  a->set_name("to");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(to);
  return c;
}

// A node's own attributes that make bf16 values (RandomNormalLike's
// dtype, EyeLike's, ...) make float32 ones instead.
void retarget_dtype_attributes(onnx::NodeProto& n) {
  for (auto& a : *n.mutable_attribute())
    if (a.name() == "dtype" && a.type() == onnx::AttributeProto::INT && a.i() == kBf16) a.set_i(kFloat);
}

void rewrite(onnx::GraphProto& g, const ValueTypes& types, std::vector<InsertedNode>& inserted) {
  auto is_bf16 = [&](const std::string& v) {
    auto it = types.find(v);
    return !v.empty() && it != types.end() && it->second == kBf16;
  };
  google::protobuf::RepeatedPtrField<onnx::NodeProto> out;
  for (auto& n : *g.mutable_node()) {
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) rewrite(*a.mutable_g(), types, inserted);
      for (auto& body : *a.mutable_graphs()) rewrite(body, types, inserted);
    }
    bool touches = false;
    for (const auto& v : n.input()) touches |= is_bf16(v);
    for (const auto& v : n.output()) touches |= is_bf16(v);
    if (!touches || moves_data_only(n.op_type())) {
      *out.Add() = std::move(n);
      continue;
    }
    for (int k = 0; k < n.input_size(); ++k) {
      if (!is_bf16(n.input(k))) continue;
      const std::string name = n.name() + "/to_float32_" + std::to_string(k);
      *out.Add() = cast_node(name, n.input(k), name + "_output_0", kFloat);
      inserted.push_back({name, n.name()});
      n.set_input(k, name + "_output_0");
    }
    std::vector<onnx::NodeProto> after;
    for (int k = 0; k < n.output_size(); ++k) {
      if (!is_bf16(n.output(k))) continue;
      const std::string name = n.name() + "/to_bfloat16_" + std::to_string(k);
      after.push_back(cast_node(name, name + "_input", n.output(k), kBf16));
      inserted.push_back({name, n.name()});
      n.set_output(k, name + "_input");
    }
    retarget_dtype_attributes(n);
    *out.Add() = std::move(n);
    for (auto& c : after) *out.Add() = std::move(c);
  }
  g.mutable_node()->Swap(&out);
}

}  // namespace

std::vector<InsertedNode> upcast_bf16(onnx::GraphProto& g, int opset) {
  std::vector<InsertedNode> inserted;
  rewrite(g, value_types(g, opset), inserted);
  return inserted;
}

}  // namespace mx::aten_onnx
