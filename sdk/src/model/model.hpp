// The object behind the C handle `mx_model`: an ONNX model plus its
// hierarchy document. Shared with the registry/tagging code, so its fields
// stay public (but the proto, which lives in the model's arena);
// invariants are kept by the functions in model/*.hpp (notably
// set_hierarchy(), which validates against the graph).
#pragma once
#include <memory>
#include <string>

#include <google/protobuf/arena.h>

#include "mx/onnx_proto.hpp"

#include "hierarchy/document.hpp"
#include "model/external_data.hpp"
#include "modelexport/modelexport.h"

struct mx_model {
  mx_model();
  mx_model(const mx_model&) = delete;
  mx_model& operator=(const mx_model&) = delete;

  onnx::ModelProto& proto() { return *proto_; }
  const onnx::ModelProto& proto() const { return *proto_; }
  // Exchanges the two models' protos (with their arenas): no copy. How a
  // pass that works on a copy publishes it (functions/to_functions.cpp).
  void swap_proto(mx_model& other) noexcept;

  // Records are kept in graph order; tags are filled in.
  mx::hierarchy::Document hierarchy;
  // File the model was loaded from ("" for bytes); names it in messages.
  std::string source_path;
  // External data files the model's tensors refer to, opened and checked at
  // load time (model/external_data.hpp); empty when all data is inline.
  mx::model::DataFiles external_files;

 private:
  // The proto lives in an arena of its own: a model is parsed once and
  // then read (tagging, saving) and released. The parse allocates several
  // small objects per node; in an arena they are laid out in parse order
  // (later walks read neighbours) and freed at once on release instead of
  // one by one (docs/performance.md). The only pass
  // that rewrites the proto (functions) works on a model of its own and
  // swaps it in, so the arena holds no garbage from replaced fields.
  std::unique_ptr<google::protobuf::Arena> arena_;
  onnx::ModelProto* proto_;
};

namespace mx::model {

// How a model names itself in error messages: its file, or "model".
std::string display_name(const mx_model& model);

// What a caller of set_hierarchy vouches for, so that it is not checked
// again (the checks and their indexes are a large part of tagging).
enum class Vouched {
  // Nothing: a user's document (mx_model_set_hierarchy_json, a frontend's
  // answer, an extracted or rewritten model). Everything is checked.
  nothing,
  // The modules passed hierarchy::validate_consistency already (a sidecar,
  // checked when it was read): only the records are checked and attached.
  modules,
  // The whole document was built for this model's graph by the tagger
  // (tagging/hierarchy_document.hpp, without a supplied tree): modules
  // consistent by construction with their tags filled in, record i is node
  // i's (index i, its name as valid UTF-8, a module of the tree with that
  // module's tag, a valid evidence). It is stored as it is; no module index
  // is kept (set_node_record builds one when first asked).
  // tests/tagging/test_hierarchy_document.cpp holds such documents to the
  // full checks.
  everything,
};

// Replaces the hierarchy after finding every record's node (by unique
// name, else by index: model/record_keys.hpp; MX_ERR_SCHEMA prefixed by
// `where`); sets each record's index to its node's position, derives
// missing tags and puts records in graph order. What `vouched` names is
// not checked again.
// The module index it builds is kept with the document
// (model.hierarchy.module_index(): later passes read it instead of
// indexing every module again).
void set_hierarchy(mx_model& model, hierarchy::Document doc, const std::string& where,
                   Vouched vouched = Vouched::nothing);

// Sets the record of the node at `position`: MX_ERR_NOT_FOUND past the
// last node, MX_ERR_SCHEMA if the module is not in a non-empty module tree.
void set_node_record(mx_model& model, size_t position, hierarchy::NodeRecord record);

}  // namespace mx::model
