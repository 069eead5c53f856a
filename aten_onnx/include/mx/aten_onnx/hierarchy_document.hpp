// The hierarchy document a frontend answers (docs/hierarchy-schema.md,
// docs/plugin-protocol.md): the envelope (schema, producer, model), the
// module tree, one record per surviving node and the statistics. Every
// frontend builds it here, so a field is added once for all of them.
#pragma once
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "mx/aten_onnx/module_tree.hpp"
#include "mx/aten_onnx/onnx_emitter.hpp"

namespace mx::aten_onnx {

// Who made the document from what.
struct DocumentSource {
  std::string source;            // producer.source: "torch.export", "torchscript"
  std::string producer_version;  // producer.version: the plugin's version
  std::string model_path;        // its file name becomes model.source_file
  int opset = 0;                 // model.opset; 0 = not stated (a module tree alone)
};

// The node part: one entry per record whose node survived (`removed` holds
// the names of nodes dropped after lowering), with its module's tag, and
// the statistics (evidence mix, at_root). `tags` maps module path -> tag.
struct HierarchyNodes {
  nlohmann::json nodes = nlohmann::json::array();
  nlohmann::json statistics;
};
HierarchyNodes hierarchy_nodes(const std::vector<NodeRecord>& records, const std::set<std::string>& removed,
                               const std::map<std::string, std::string>& tags);

// The document of an export. `graph_passes` (what the graph passes did,
// null = not reported) is written as given.
nlohmann::json export_document(const DocumentSource& source, const ModuleTree& tree, HierarchyNodes nodes,
                               nlohmann::json graph_passes = nullptr);

// The document of a module tree alone (no node records), what
// `modelexport hierarchy` writes.
nlohmann::json module_tree_document(const DocumentSource& source, const ModuleTree& tree);

}  // namespace mx::aten_onnx
