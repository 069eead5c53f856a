#include "model/graph_json.hpp"

#include "model/node_metadata.hpp"

namespace mx::model {
namespace {

using Json = nlohmann::ordered_json;

Json shape_json(const onnx::TensorShapeProto& shape) {
  Json dims = Json::array();
  for (const auto& d : shape.dim()) {
    if (d.has_dim_value()) dims.push_back(d.dim_value());
    else if (d.has_dim_param()) dims.push_back(d.dim_param());
    else dims.push_back(nullptr);  // unknown, unnamed dimension
  }
  return dims;
}

Json value_info_json(const onnx::ValueInfoProto& v) {
  Json j = Json::object();
  j["name"] = v.name();
  if (v.type().has_tensor_type()) {
    const auto& t = v.type().tensor_type();
    j["dtype"] = dtype_name(t.elem_type());
    j["shape"] = t.has_shape() ? shape_json(t.shape()) : Json(nullptr);
  } else {
    j["dtype"] = nullptr;  // sequence/map/optional: no single tensor type
    j["shape"] = nullptr;
  }
  return j;
}

Json initializer_json(const onnx::TensorProto& t) {
  Json j = Json::object();
  j["name"] = t.name();
  j["dtype"] = dtype_name(t.data_type());
  Json dims = Json::array();
  for (auto d : t.dims()) dims.push_back(d);
  j["shape"] = dims;
  return j;
}

template <typename List, typename Fn>
Json array_of(const List& list, Fn fn) {
  Json arr = Json::array();
  for (const auto& item : list) arr.push_back(fn(item));
  return arr;
}

}  // namespace

const char* dtype_name(int32_t elem_type) {
  using T = onnx::TensorProto;
  switch (elem_type) {
    case T::FLOAT:
      return "float32";
    case T::UINT8:
      return "uint8";
    case T::INT8:
      return "int8";
    case T::UINT16:
      return "uint16";
    case T::INT16:
      return "int16";
    case T::INT32:
      return "int32";
    case T::INT64:
      return "int64";
    case T::STRING:
      return "string";
    case T::BOOL:
      return "bool";
    case T::FLOAT16:
      return "float16";
    case T::DOUBLE:
      return "float64";
    case T::UINT32:
      return "uint32";
    case T::UINT64:
      return "uint64";
    case T::COMPLEX64:
      return "complex64";
    case T::COMPLEX128:
      return "complex128";
    case T::BFLOAT16:
      return "bfloat16";
    default:
      return "undefined";
  }
}

Json node_view(const onnx::NodeProto& node, size_t index) {
  Json j = Json::object();
  j["index"] = index;
  j["name"] = node.name();
  j["op_type"] = node.op_type();
  j["domain"] = node.domain();
  j["inputs"] = array_of(node.input(), [](const std::string& s) { return s; });
  j["outputs"] = array_of(node.output(), [](const std::string& s) { return s; });
  Json metadata = Json::object();
  for (const auto& [key, value] : read_node_metadata(node)) metadata[key] = value;
  j["metadata"] = metadata;
  j["doc_string"] = node.doc_string();
  return j;
}

Json graph_view(const onnx::ModelProto& proto) {
  const auto& g = proto.graph();
  Json j = Json::object();
  j["ir_version"] = proto.ir_version();
  Json opsets = Json::object();
  for (const auto& o : proto.opset_import()) opsets[o.domain()] = o.version();
  j["opset_import"] = opsets;
  j["producer_name"] = proto.producer_name();
  j["producer_version"] = proto.producer_version();
  j["graph_name"] = g.name();
  Json metadata = Json::object();
  for (const auto& e : proto.metadata_props()) metadata[e.key()] = e.value();
  j["metadata"] = metadata;
  j["inputs"] = array_of(g.input(), value_info_json);
  j["outputs"] = array_of(g.output(), value_info_json);
  j["initializers"] = array_of(g.initializer(), initializer_json);
  Json nodes = Json::array();
  for (int i = 0; i < g.node_size(); ++i) nodes.push_back(node_view(g.node(i), i));
  j["nodes"] = nodes;
  return j;
}

}  // namespace mx::model
