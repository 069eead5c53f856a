// Where node records live inside the ONNX file (docs/hierarchy-schema.md,
// "Storage on the ONNX nodes"): write them on save, read them on load.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "mx/onnx_proto.hpp"

#include "hierarchy/document.hpp"
#include "model/dynamo_namespace.hpp"

namespace mx::model {

enum class TagStorage { metadata, doc_string, none };

// "metadata" | "doc_string" | "none"; MX_ERR_INVALID_ARGUMENT otherwise.
TagStorage tag_storage_from_name(const std::string& name);

inline constexpr const char* kDocStringPrefix = "modelexport:";

// Storing `doc` in a model as it is saved (model/tagged_bytes, the one
// encoder): our own keys and doc_strings are replaced, never duplicated;
// other metadata entries are kept.
//
// The model-level part: the module tree, schema, producer and model
// entries of metadata_props (ours replaced, others kept).
void store_model_metadata(onnx::ModelProto& proto, const hierarchy::Document& doc, TagStorage storage);

// The node-level part, one node at a time in file order, for the graph it
// was made for (records by position).
class NodeTagWriter {
 public:
  NodeTagWriter(const onnx::GraphProto& graph, const hierarchy::Document& doc, TagStorage storage);
  // Stores the record of the node at `position` on `node` (a copy), for a
  // node plan_suffix refused.
  void write_to(size_t position, onnx::NodeProto& node);
  // When storing leaves the node's serialized fields as they are (the
  // usual case: no unknown fields, no doc_string of ours) and at most adds
  // metadata entries after them: the size of those bytes, which
  // write_suffix then writes. Nullopt: the node must go through write_to
  // on a copy. Asked once per node, in file order (the namespaces of a run
  // of nodes share their module's part: DynamoNamespaces).
  std::optional<size_t> plan_suffix(size_t position, const onnx::NodeProto& node);
  // Writes the `size` bytes plan_suffix gave for the node at `position`
  // (in any order: what varies per module is kept from the plan, so no
  // buffer of every node's entries is written and then copied).
  void write_suffix(size_t position, const onnx::NodeProto& node, char* out) const;

 private:
  // plan_suffix without its refusals: the size of the entries the node at
  // `position` gains (0 when it gains none).
  size_t plan(size_t position, const onnx::NodeProto& node);

  const hierarchy::Document& doc_;  // the records' tags may be their modules'
  std::vector<const hierarchy::NodeRecord*> records_;
  DynamoNamespaces namespaces_;
  TagStorage storage_;
  // A planned node's namespace prefix and tag, by position (metadata
  // storage only): one per run of nodes of one module, copied along the
  // run. The tag is kept because a record's may be its module's
  // (hierarchy::record_tag): reading it there again per node in
  // write_suffix cost a cache miss and a path compare each.
  struct Plan {
    DynamoNamespaces::PrefixRef prefix;
    const std::string* tag = nullptr;
  };
  std::vector<Plan> planned_;
  const hierarchy::NodeRecord* last_record_ = nullptr;  // of the last planned node
  size_t last_position_ = 0;                            // that node
};

// Rebuilds the document from what the file carries. Per node the order is
// node metadata, then doc_string, then the sidecar; the module tree comes
// from model metadata, then the sidecar. `where` names the file.
// `sidecar_modules`, when given, is set to whether the document's modules
// are the sidecar's (the file carries no tree of its own).
hierarchy::Document load_hierarchy(const onnx::ModelProto& proto, std::optional<hierarchy::Document> sidecar,
                                   const std::string& where, bool* sidecar_modules = nullptr);

}  // namespace mx::model
