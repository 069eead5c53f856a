// The object behind the C handle `mx_model`: an ONNX model plus its
// hierarchy document. Shared with the registry/tagging code, so it stays a
// plain aggregate; invariants are kept by the functions in model/*.hpp
// (notably set_hierarchy(), which validates against the graph).
#pragma once
#include <string>

#include <onnx/onnx_pb.h>

#include "hierarchy/document.hpp"
#include "model/external_data.hpp"
#include "modelexport/modelexport.h"

struct mx_model {
  onnx::ModelProto proto;
  // Records are kept in graph order; tags are filled in.
  modelexport::hierarchy::Document hierarchy;
  // File the model was loaded from ("" for bytes); names it in messages.
  std::string source_path;
  // External data files the model's tensors refer to, opened and checked at
  // load time (model/external_data.hpp); empty when all data is inline.
  modelexport::model::DataFiles external_files;
};

namespace modelexport::model {

// How a model names itself in error messages: its file, or "model".
std::string display_name(const mx_model& model);

// Replaces the hierarchy after checking every record names a node of the
// graph (MX_ERR_SCHEMA, prefixed by `where`); derives missing tags and puts
// records in graph order.
void set_hierarchy(mx_model& model, hierarchy::Document doc, const std::string& where);

// Sets one node's record: MX_ERR_NOT_FOUND if the graph has no such node,
// MX_ERR_SCHEMA if the module is not in a non-empty module tree.
void set_node_record(mx_model& model, hierarchy::NodeRecord record);

}  // namespace modelexport::model
