// How tagging and the registry reach models. The registry's frontends and
// outside callers go through the public C API (mx_model_*), so they depend
// on the model layer's contract, not on its internals; the wrappers below
// turn an mx_status into a thrown Error.
//
// mx_registry_tag is the exception, for speed only: it lives in the same
// library as the model layer and reads the graph from the proto and stores
// its document with model::set_hierarchy — the function behind
// mx_model_set_hierarchy_json, so the same validation applies — instead of
// writing the graph view and the document as JSON text and parsing them
// again (at 200,000 nodes those two round trips were a third of the
// tagging time). model_proto() and store_hierarchy() are that door; nothing
// else in tagging touches mx_model.
#pragma once
#include <string>

#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include "hierarchy/document.hpp"
#include "modelexport/modelexport.h"

namespace modelexport {

// Throws Error(code, message) and releases the status when it is non-NULL.
void throw_if_error(mx_status* status);

void set_model_hierarchy(mx_model* model, const nlohmann::json& document);

const onnx::ModelProto& model_proto(const mx_model& model);
// model::check_graph_structure under the model's display name: a graph
// that is not a DAG, reads an undefined value or writes one twice cannot
// be tagged (propagation walks producers and consumers).
void check_model_structure(const mx_model& model);
// model::set_hierarchy(model, doc, "hierarchy"): what
// mx_model_set_hierarchy_json does after parsing its text.
void store_hierarchy(mx_model& model, hierarchy::Document doc);

}  // namespace modelexport
