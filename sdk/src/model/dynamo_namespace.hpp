// The `namespace` node metadata in the format of PyTorch's dynamo exporter,
// ": <root class>/<name>: <class>/…/<node name>: <op_type>", so that tools
// that understand dynamo files (Model Explorer's ONNX adapter) group nodes
// by our hierarchy.
#pragma once
#include <optional>
#include <string>

#include "hierarchy/document.hpp"

namespace modelexport::model {

// One per save (`index`: a ModuleIndex of the document), asked for the
// nodes in file order: consecutive nodes of one module (the usual case: an op lowers to several nodes) share the
// part the module contributes (its chain of called modules up to the
// root), built once for the run instead of once per node. Only the last
// module is kept: a map of every module's part cost more than it saved on
// a graph with a module per node or two.
class DynamoNamespaces {
 public:
  explicit DynamoNamespaces(const hierarchy::ModuleIndex& index) : index_(index) {}
  std::string of(const std::string& module_path, const std::string& node_name,
                 const std::string& op_type);
  // The part of `of` before the node's own "name: op_type" (ends in "/",
  // or is empty); valid until the next call.
  const std::string& prefix(const std::string& module_path);

 private:
  const hierarchy::ModuleIndex& index_;
  std::optional<std::string> last_module_;  // none before the first node
  std::string last_prefix_;                 // "…/" of last_module_
};

}  // namespace modelexport::model
