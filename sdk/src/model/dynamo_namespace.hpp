// The `namespace` node metadata in the format of PyTorch's dynamo exporter,
// ": <root class>/<name>: <class>/…/<node name>: <op_type>", so that tools
// that understand dynamo files (Model Explorer's ONNX adapter) group nodes
// by our hierarchy.
#pragma once
#include <string>

#include "hierarchy/document.hpp"

namespace modelexport::model {

// `index` is a ModuleIndex of the document (built once per save).
std::string dynamo_namespace(const hierarchy::ModuleIndex& index, const std::string& module_path,
                             const std::string& node_name, const std::string& op_type);

}  // namespace modelexport::model
