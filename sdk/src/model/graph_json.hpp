// The graph view: a JSON picture of the ONNX graph for callers and strategy
// plugins (format documented at mx_model_graph_json in modelexport.h; nodes
// also carry "index", "metadata" and "doc_string").
#pragma once
#include <nlohmann/json.hpp>
#include "mx/onnx_proto.hpp"

namespace mx::model {

nlohmann::ordered_json graph_view(const onnx::ModelProto& proto);
nlohmann::ordered_json node_view(const onnx::NodeProto& node, size_t index);
// "float32", "int64", ... (numpy spelling, as in input specs).
const char* dtype_name(int32_t elem_type);

}  // namespace mx::model
