// A copy of a model for the ONNX checker and shape inference: initializers
// stored as external data become graph inputs of the same type and shape
// (the checker would otherwise look for their files relative to the
// process's working directory). No weight bytes are copied: external
// tensors hold none.
//
// Header-only and depending on the ONNX protobuf alone, because two
// components need it that do not link each other: the core (model/check.cpp,
// checking a loaded or saved model) and the torchscript frontend plugin
// (checking its export before answering), which never links the core.
#pragma once
#include <set>
#include <string>

#include "mx/onnx_proto.hpp"

namespace mx::aten_onnx {

inline onnx::ModelProto checkable_copy(const onnx::ModelProto& proto) {
  onnx::ModelProto copy = proto;
  auto* g = copy.mutable_graph();
  std::set<std::string> inputs;
  for (const auto& i : g->input()) inputs.insert(i.name());
  auto* inits = g->mutable_initializer();
  for (int i = inits->size() - 1; i >= 0; --i) {
    const onnx::TensorProto& t = inits->Get(i);
    if (t.data_location() != onnx::TensorProto::EXTERNAL) continue;
    if (!inputs.count(t.name())) {
      auto* v = g->add_input();
      v->set_name(t.name());
      auto* tt = v->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(t.data_type());
      auto* shape = tt->mutable_shape();
      for (auto d : t.dims()) shape->add_dim()->set_dim_value(d);
    }
    inits->DeleteSubrange(i, 1);
  }
  return copy;
}

}  // namespace mx::aten_onnx
