#include "model/tag_storage.hpp"

#include <cstring>
#include "util/json_text.hpp"

#include "hierarchy/document_text.hpp"
#include "hierarchy/parse.hpp"
#include "model/dynamo_namespace.hpp"
#include "model/node_metadata.hpp"
#include "model/record_keys.hpp"
#include "util/error.hpp"
#include "util/utf8.hpp"

namespace mx::model {
namespace {

using hierarchy::Json;

constexpr const char* kModuleKey = "modelexport.module";
constexpr const char* kTagKey = "modelexport.tag";
constexpr const char* kEvidenceKey = "modelexport.evidence";
constexpr const char* kNamespaceKey = "namespace";
constexpr const char* kSchemaKey = "modelexport.schema";
constexpr const char* kModulesKey = "modelexport.modules";
constexpr const char* kProducerKey = "modelexport.producer";
constexpr const char* kModelKey = "modelexport.model";

bool is_ours(const std::string& key) {
  return key.rfind("modelexport.", 0) == 0;
}

bool has_our_doc_string(const onnx::NodeProto& node) {
  return node.doc_string().rfind(kDocStringPrefix, 0) == 0;
}

// Node metadata without our keys (and without `namespace` when we are about
// to write our own).
MetadataEntries foreign_entries(const onnx::NodeProto& node, bool drop_namespace) {
  MetadataEntries kept;
  for (auto& entry : read_node_metadata(node)) {
    if (is_ours(entry.first)) continue;
    if (drop_namespace && entry.first == kNamespaceKey) continue;
    kept.push_back(std::move(entry));
  }
  return kept;
}

}  // namespace

void store_model_metadata(onnx::ModelProto& proto, const hierarchy::Document& doc, TagStorage storage) {
  for (const char* key : {kSchemaKey, kModulesKey, kProducerKey, kModelKey}) erase_model_metadata(proto, key);
  if (storage == TagStorage::none || doc.empty()) return;
  set_model_metadata(proto, kSchemaKey, hierarchy::kSchema);
  set_model_metadata(proto, kModulesKey, hierarchy::modules_text(doc.modules));
  if (!doc.producer.is_null()) set_model_metadata(proto, kProducerKey, dump_text(doc.producer));
  if (!doc.model.is_null()) set_model_metadata(proto, kModelKey, dump_text(doc.model));
}

namespace {

// A record from node metadata, or nullopt when the node has none.
std::optional<hierarchy::NodeRecord> record_from_metadata(const onnx::NodeProto& node,
                                                          const std::string& where) {
  // Most nodes of a file being tagged carry nothing: no JSON object each.
  if (node.metadata_props().empty()) return std::nullopt;
  Json j = Json::object();
  for (const auto& [key, value] : read_node_metadata(node)) {
    if (key == kModuleKey) j["module"] = to_valid_utf8(value);
    if (key == kTagKey) j["tag"] = to_valid_utf8(value);
    if (key == kEvidenceKey) j["evidence"] = to_valid_utf8(value);
  }
  if (j.empty()) return std::nullopt;
  return hierarchy::parse_record(j, where + ": node '" + printable(node.name()) + "' metadata");
}

std::optional<hierarchy::NodeRecord> record_from_doc_string(const onnx::NodeProto& node,
                                                            const std::string& where) {
  if (!has_our_doc_string(node)) return std::nullopt;
  const std::string label = where + ": node '" + printable(node.name()) + "' doc_string";
  Json j;
  try {
    check_json_limits(node.doc_string(), label);
    j = Json::parse(node.doc_string().substr(std::string(kDocStringPrefix).size()));
  } catch (const Json::exception& e) {
    fail(MX_ERR_PARSE, label + ": not valid JSON: " + e.what());
  }
  return hierarchy::parse_record(j, label);
}

// Parses one JSON-valued model metadata entry, naming it on failure.
std::optional<Json> model_metadata_json(const onnx::ModelProto& proto, const char* key,
                                        const std::string& where) {
  const std::string* text = find_model_metadata(proto, key);
  if (!text) return std::nullopt;
  check_json_limits(*text, where + ": model metadata " + key);
  try {
    return Json::parse(*text);
  } catch (const Json::exception& e) {
    fail(MX_ERR_PARSE, where + ": model metadata " + key + ": not valid JSON: " + e.what());
  }
}

// Moves the sidecar's fields (a copy of a million-module tree cost as much
// as parsing it).
// Returns whether the modules are the sidecar's.
bool load_document_fields(const onnx::ModelProto& proto, std::optional<hierarchy::Document>& sidecar,
                          const std::string& where, hierarchy::Document& doc) {
  bool sidecar_modules = sidecar.has_value();
  if (sidecar) {
    doc.producer = std::move(sidecar->producer);
    doc.model = std::move(sidecar->model);
    doc.modules = std::move(sidecar->modules);
    doc.extra = std::move(sidecar->extra);
  }
  if (auto modules = model_metadata_json(proto, kModulesKey, where)) {
    doc.modules = hierarchy::parse_modules(*modules, where + ": model metadata " + kModulesKey);
    sidecar_modules = false;
  }
  if (auto producer = model_metadata_json(proto, kProducerKey, where)) doc.producer = *producer;
  if (auto model = model_metadata_json(proto, kModelKey, where)) doc.model = *model;
  return sidecar_modules;
}

}  // namespace

TagStorage tag_storage_from_name(const std::string& name) {
  if (name == "metadata") return TagStorage::metadata;
  if (name == "doc_string") return TagStorage::doc_string;
  if (name == "none") return TagStorage::none;
  fail(MX_ERR_INVALID_ARGUMENT, "tag_storage: '" + name + "' is not one of metadata|doc_string|none");
}

NodeTagWriter::NodeTagWriter(const onnx::GraphProto& graph, const hierarchy::Document& doc,
                             TagStorage storage)
    : doc_(doc),
      records_(hierarchy::records_by_position(doc, static_cast<size_t>(graph.node_size()))),
      namespaces_(doc.modules, doc.module_index()),
      storage_(storage) {}

void NodeTagWriter::write_to(size_t position, onnx::NodeProto& node) {
  const hierarchy::NodeRecord* record = records_.at(position);
  const bool as_metadata = record && storage_ == TagStorage::metadata;
  write_node_metadata(node, foreign_entries(node, as_metadata));
  if (has_our_doc_string(node)) node.clear_doc_string();
  if (record && storage_ == TagStorage::doc_string)
    node.set_doc_string(kDocStringPrefix + dump_text(record_to_json(doc_, *record, false)));
  if (!as_metadata) return;
  // Our entries after the kept ones, from the bytes write_suffix writes:
  // they are spelled in one place.
  std::string entries(plan(position, node), '\0');
  write_suffix(position, node, entries.data());
  if (!node.MergeFromString(entries)) fail(MX_ERR_INTERNAL, "storing a node's records: bad metadata bytes");
}

std::optional<size_t> NodeTagWriter::plan_suffix(size_t position, const onnx::NodeProto& node) {
  // Anything write_to would remove or replace (metadata entries: older ones
  // of ours, foreign ones; unknown fields; a doc_string of ours) needs the
  // node rewritten.
  if (node.metadata_props_size() > 0 || !node.unknown_fields().empty() || has_our_doc_string(node))
    return std::nullopt;
  if (records_.at(position) && storage_ == TagStorage::doc_string) return std::nullopt;
  return plan(position, node);
}

size_t NodeTagWriter::plan(size_t position, const onnx::NodeProto& node) {
  const hierarchy::NodeRecord* record = records_.at(position);
  if (!record || storage_ != TagStorage::metadata) return 0;  // the node as it is
  if (planned_.empty()) planned_.resize(records_.size());
  Plan& plan = planned_[position];
  const Plan* last =
      last_record_ && last_record_->module == record->module ? &planned_[last_position_] : nullptr;
  plan.prefix = last ? last->prefix : namespaces_.prefix_ref(record->module, record->module_at);
  // Records of a run that read their module's tag read the same one.
  plan.tag = last && record->tag_from_module && last_record_->tag_from_module
                 ? last->tag
                 : &hierarchy::record_tag(doc_, *record);
  last_record_ = record;
  last_position_ = position;
  // The entries write_suffix writes, in its order.
  size_t ns_size = 0;
  for (std::string_view piece :
       DynamoNamespaces::layout(namespaces_.parts_of(plan.prefix), node.name(), node.op_type()))
    ns_size += piece.size();
  return node_metadata_entry_size(kModuleKey, record->module.size()) +
         node_metadata_entry_size(kTagKey, plan.tag->size()) +
         node_metadata_entry_size(kEvidenceKey, std::strlen(hierarchy::evidence_name(record->evidence))) +
         node_metadata_entry_size(kNamespaceKey, ns_size);
}

void NodeTagWriter::write_suffix(size_t position, const onnx::NodeProto& node, char* out) const {
  const hierarchy::NodeRecord* record = records_.at(position);
  if (!record || storage_ != TagStorage::metadata) return;
  const std::string_view evidence = hierarchy::evidence_name(record->evidence);
  const Plan& plan = planned_.at(position);
  const auto ns = DynamoNamespaces::layout(namespaces_.parts_of(plan.prefix), node.name(), node.op_type());
  size_t ns_size = 0;
  for (std::string_view piece : ns) ns_size += piece.size();
  out = write_node_metadata_entry(out, kModuleKey, {record->module}, record->module.size());
  out = write_node_metadata_entry(out, kTagKey, {*plan.tag}, plan.tag->size());
  out = write_node_metadata_entry(out, kEvidenceKey, {evidence}, evidence.size());
  write_node_metadata_entry(out, kNamespaceKey, {ns[0], ns[1], ns[2], ns[3], ns[4]}, ns_size);
}

hierarchy::Document load_hierarchy(const onnx::ModelProto& proto, std::optional<hierarchy::Document> sidecar,
                                   const std::string& where, bool* sidecar_modules) {
  hierarchy::Document doc;
  const bool from_sidecar = load_document_fields(proto, sidecar, where, doc);
  if (sidecar_modules) *sidecar_modules = from_sidecar;
  // The sidecar's records by node position (model/record_keys.hpp); a
  // record that names no node of this graph is stale and not used.
  const auto& graph = proto.graph();
  std::vector<hierarchy::NodeRecord*> sidecar_records(static_cast<size_t>(graph.node_size()));
  if (sidecar) {
    const NodeKeys keys(graph);
    std::string why;
    for (auto& r : sidecar->nodes)
      if (auto at = keys.find(r, &why)) sidecar_records[*at] = &r;
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    auto record = record_from_metadata(node, where);
    if (!record) record = record_from_doc_string(node, where);
    hierarchy::NodeRecord* beside = sidecar_records[static_cast<size_t>(i)];
    if (!record && beside) record = std::move(*beside);
    // Node storage holds module, tag and evidence only: the record's other
    // keys (source_node, call, a newer version's) come from the sidecar's
    // record of the node, while both place it in the same module.
    else if (record && beside && beside->module == record->module && !beside->extra.is_null())
      record->extra = std::move(beside->extra);
    if (!record) continue;
    record->name = to_valid_utf8(node.name());
    record->index = i;
    doc.nodes.push_back(std::move(*record));
  }
  return doc;
}

}  // namespace mx::model
