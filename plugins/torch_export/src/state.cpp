#include "state.hpp"

#include <set>

#include "modelexport/modelexport.h"
#include "mx/aten_onnx/error.hpp"
#include "mx/aten_onnx/model_assembly.hpp"

namespace mx::torch_export {
using mx::aten_onnx::Error;
namespace {

const char* kind_name(InputSlot::Kind k) {
  switch (k) {
    case InputSlot::buffer:
      return "buffer";
    case InputSlot::parameter:
      return "parameter";
    case InputSlot::constant:
      return "constant";
    default:
      return "input";
  }
}

bool same_input(const InputSlot& in, const Mutation& m) {
  switch (m.kind) {
    case Mutation::user_input:
      return in.kind == InputSlot::user && in.value == m.target;
    case Mutation::buffer:
      return in.kind == InputSlot::buffer && in.target == m.target;
    default:
      return in.kind == InputSlot::parameter && in.target == m.target;
  }
}

bool is_complex(int32_t dtype) {
  return dtype == onnx::TensorProto::COMPLEX64 || dtype == onnx::TensorProto::COMPLEX128;
}

// A graph input typed as the program's input `in`.
void add_input(const Program& p, const InputSlot& in, onnx::GraphProto& graph) {
  auto meta = p.tensors.find(in.value);
  if (meta == p.tensors.end())
    throw Error(MX_ERR_PARSE, "'" + p.file + "': input '" + in.value + "' has no metadata");
  auto* vi = graph.add_input();
  vi->set_name(in.target);
  vi->set_doc_string(std::string(kind_name(in.kind)) + " '" + in.target +
                     "', written by the program: its initializer holds the saved value; feed output '" +
                     updated_name(in.target) + "' back here for the next call");
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(meta->second.dtype);
  auto* shape = tt->mutable_shape();
  for (const auto& d : meta->second.sizes) {
    auto* dim = shape->add_dim();
    if (d.is_static) dim->set_dim_value(d.value);
    else dim->set_dim_param(!d.symbol.empty() ? d.symbol : d.expr);
  }
}

}  // namespace

std::string updated_name(const std::string& name) {
  return name + ".updated";
}

json add_state(LowerCtx& cx, const Program& p, bool outputs) {
  for (const auto& m : p.mutations) {
    bool found = false;
    for (const auto& in : p.inputs) found |= same_input(in, m);
    if (!found)
      throw Error(MX_ERR_PARSE, "'" + p.file + "': the signature writes '" + m.target +
                                    "', which is not an input of the program");
  }
  std::set<std::string> done;  // inputs that are one tensor (state.hpp) are one state
  json written = json::array();
  for (const auto& in : p.inputs) {
    auto bound = cx.input_onnx.find(in.value);
    if (bound == cx.input_onnx.end() || done.count(bound->second)) continue;
    const std::string& name = bound->second;
    const Mutation* declared = nullptr;
    for (const auto& m : p.mutations)
      if (same_input(in, m)) declared = &m;
    // TRAINING programs write in place: the input itself was rebound to
    // its last value (mutation.cpp). Core ATen programs are functional:
    // the signature names the value.
    auto self = cx.values.find(in.value);
    const bool rebound = self != cx.values.end() && self->second.onnx != name;
    if (!declared && !rebound) continue;
    done.insert(name);
    // The input the ONNX name is: a buffer a constant is read as (bind_stored).
    const InputSlot* named = &in;
    for (const auto& other : p.inputs)
      if (other.kind != InputSlot::user && other.target == name) named = &other;
    auto it = rebound ? self : cx.values.find(declared->value);
    if (it == cx.values.end())
      throw Error(MX_ERR_PARSE, "'" + p.file + "': the new value of " + kind_name(named->kind) + " '" + name +
                                    "' ('" + declared->value + "') is never computed");
    const Value v = it->second;
    if (v.dtype == 0 || is_complex(v.dtype))
      throw Error(MX_ERR_UNSUPPORTED, "'" + p.file + "': the program writes " + kind_name(named->kind) +
                                          " '" + name + "', of a dtype the file cannot carry as state");
    written.push_back({{"name", name},
                       {"kind", kind_name(named->kind)},
                       {"updated", outputs ? json(updated_name(name)) : json(nullptr)}});
    if (!outputs) continue;  // an initializer (or plain input) whose writes are dropped
    if (named->kind != InputSlot::user) add_input(p, *named, cx.graph);
    bind_graph_output(cx, v.onnx, updated_name(name), v.dtype, static_cast<int64_t>(v.shape.size()));
    cx.graph.mutable_output(cx.graph.output_size() - 1)
        ->set_doc_string(std::string("the value of ") + kind_name(named->kind) + " '" + name +
                         "' after the call: feed it back as input '" + name + "'");
  }
  return written.empty() ? json() : json{{"outputs", outputs}, {"written", written}};
}

std::string dropped_updates_warning(const std::string& file, const json& state) {
  if (state.is_null() || state.at("outputs").get<bool>()) return "";
  std::string names;
  for (const auto& w : state.at("written"))
    names += (names.empty() ? "" : ", ") + w.at("kind").get<std::string>() + " '" +
             w.at("name").get<std::string>() + "'";
  return "'" + file + "': the program writes " + names +
         "; with \"state_outputs\": false (--no-state-outputs) the file drops those writes: every call "
         "starts from the saved values";
}

void bind_graph_output(LowerCtx& cx, std::string src, const std::string& name, int32_t dtype, int64_t rank) {
  const std::string now = mx::aten_onnx::add_graph_output(cx, src, name, dtype, rank);
  if (now == src) return;
  for (auto& [value, v] : cx.values)  // the value was renamed: a later output of it reads the new name
    if (v.onnx == src) v.onnx = now;
}

}  // namespace mx::torch_export
