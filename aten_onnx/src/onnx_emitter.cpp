#include "mx/aten_onnx/onnx_emitter.hpp"

#include "opset_forms.hpp"

#include <algorithm>
#include <cctype>

#include "modelexport/modelexport.h"
#include "mx/aten_onnx/error.hpp"

namespace mx::aten_onnx {

std::string scope_prefix(const std::string& path) {
  if (path.empty()) return "";
  std::string out;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t dot = path.find('.', pos);
    if (dot == std::string::npos) dot = path.size();
    std::string comp = path.substr(pos, dot - pos);
    bool numeric = !comp.empty() && std::all_of(comp.begin(), comp.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    if (numeric && !out.empty()) out += "." + comp;
    else out += "/" + comp;
    pos = dot + 1;
  }
  return out;
}

std::string OnnxEmitter::unique_node_name(const std::string& base) {
  int& n = name_count_[base];
  std::string name = n == 0 ? base : base + "_" + std::to_string(n);
  ++n;
  return name;
}

std::vector<std::string> OnnxEmitter::emit(const std::string& op, const std::vector<std::string>& ins,
                                           const std::vector<onnx::AttributeProto>& attrs, size_t n_out) {
  if (auto form = opset_form(*this, op, ins, attrs, n_out)) {
    require_in_opset(op, form->attrs, opset);
    return emit_node(op, form->inputs, form->attrs, n_out);
  }
  require_in_opset(op, attrs, opset);
  return emit_node(op, ins, attrs, n_out);
}

std::vector<std::string> OnnxEmitter::emit_node(const std::string& op, const std::vector<std::string>& ins,
                                                const std::vector<onnx::AttributeProto>& attrs,
                                                size_t n_out) {
  const std::string& module = current_module();
  onnx::NodeProto* nd = graph.add_node();
  std::string name = unique_node_name(scope_prefix(module) + "/" + op);
  nd->set_name(name);
  nd->set_op_type(op);
  for (const auto& i : ins) nd->add_input(i);
  std::vector<std::string> outs;
  for (size_t k = 0; k < n_out; ++k) {
    outs.push_back(name + "_output_" + std::to_string(k));
    nd->add_output(outs.back());
  }
  for (const auto& a : attrs) *nd->add_attribute() = a;
  // Every op is captured from the module whose forward is executing it, the
  // root's own forward included (module ""): that is `direct` evidence as
  // docs/hierarchy-schema.md defines it. `root` stays the fallback of the
  // tagging core for nodes with no evidence at all.
  records.push_back({name, module, "direct", current_source_node(), current_call()});
  return outs;
}

std::string OnnxEmitter::constant(const onnx::TensorProto& value) {
  std::string key;
  int64_t numel = 1;
  for (auto d : value.dims()) numel *= d;
  if (numel <= 64) {  // small constants (shapes, axes, scalars) repeat a lot
    key = current_module() + '|' + std::to_string(value.data_type()) + '|';
    for (auto d : value.dims()) key += std::to_string(d) + ',';
    // the bytes: raw_data, or the typed fields (float_data, int64_data...)
    // of a tensor built without raw_data - two of those with the same dims
    // must not share a constant
    key += '|' + (value.has_raw_data() ? value.raw_data() : value.SerializeAsString());
    auto it = constant_cache_.find(key);
    if (it != constant_cache_.end()) return it->second;
  }
  onnx::TensorProto v = value;
  v.clear_name();
  std::string out = emit1("Constant", {}, {attr("value", v)});
  if (!key.empty()) constant_cache_[key] = out;
  return out;
}

std::string OnnxEmitter::ci64(const std::vector<int64_t>& v) {
  return constant(int64_tensor(v));
}
std::string OnnxEmitter::ci64s(int64_t v) {
  return constant(int64_tensor({v}, true));
}
std::string OnnxEmitter::cscalar(double v, int32_t dtype) {
  return constant(filled_tensor(dtype, {}, v));
}

std::string OnnxEmitter::cast(const std::string& x, int32_t from, int32_t to) {
  if (from == to) return x;
  return emit1("Cast", {x}, {attr("to", static_cast<int64_t>(to))});
}

std::string OnnxEmitter::dim_size(const std::string& x, int64_t dim) {
  return emit1("Gather", {shape_of(x), ci64s(dim)}, {attr("axis", int64_t{0})});
}

void OnnxEmitter::unsupported(const std::string& what) const {
  throw Error(MX_ERR_UNSUPPORTED, "unsupported: " + what + " at " + where());
}

namespace {

void describe(onnx::ValueInfoProto* v, const OnnxEmitter::BodyValue& b) {
  v->set_name(b.name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(b.dtype);
  if (!b.ranked) return;
  auto* shape = tt->mutable_shape();
  for (int64_t d : b.dims) {
    auto* dim = shape->add_dim();
    if (d >= 0) dim->set_dim_value(d);
  }
}

}  // namespace

onnx::GraphProto OnnxEmitter::body_graph(const std::string& holder, const std::string& name,
                                         const std::vector<BodyValue>& inputs,
                                         const std::function<std::vector<BodyValue>()>& build) {
  auto require_type = [&](const std::vector<BodyValue>& values) {
    for (const BodyValue& v : values)
      if (v.dtype == onnx::TensorProto::BFLOAT16 && opset < 16)
        unsupported("bf16 values through an ONNX " + holder + " need ONNX opset 16");
  };
  require_type(inputs);
  const size_t first_record = records.size();
  Subgraph sub;
  sub.graph.set_name(name);
  swap_subgraph(sub);
  auto restore = [&] {
    swap_subgraph(sub);
    records.resize(first_record);
  };
  try {
    for (const BodyValue& v : inputs) describe(graph.add_input(), v);
    const std::vector<BodyValue> outputs = build();
    require_type(outputs);
    for (const BodyValue& v : outputs) describe(graph.add_output(), v);
  } catch (...) {
    restore();
    throw;
  }
  restore();
  return std::move(sub.graph);
}

}  // namespace mx::aten_onnx
