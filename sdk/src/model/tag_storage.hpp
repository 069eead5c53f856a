// Where node records live inside the ONNX file (docs/hierarchy-schema.md,
// "Storage on the ONNX nodes"): write them on save, read them on load.
#pragma once
#include <optional>
#include <string>

#include <onnx/onnx_pb.h>

#include "hierarchy/document.hpp"

namespace modelexport::model {

enum class TagStorage { metadata, doc_string, none };

// "metadata" | "doc_string" | "none"; MX_ERR_INVALID_ARGUMENT otherwise.
TagStorage tag_storage_from_name(const std::string& name);

inline constexpr const char* kDocStringPrefix = "modelexport:";

// Writes `doc` into `proto` (a copy the caller is about to serialize).
// Our own keys/doc_strings are replaced, never duplicated; other metadata
// entries are kept.
void store_hierarchy(onnx::ModelProto& proto, const hierarchy::Document& doc,
                     TagStorage storage);

// Rebuilds the document from what the file carries. Per node the order is
// node metadata, then doc_string, then the sidecar; the module tree comes
// from model metadata, then the sidecar. `where` names the file.
// `sidecar_modules`, when given, is set to whether the document's modules
// are the sidecar's (the file carries no tree of its own).
hierarchy::Document load_hierarchy(const onnx::ModelProto& proto,
                                   std::optional<hierarchy::Document> sidecar,
                                   const std::string& where, bool* sidecar_modules = nullptr);

}  // namespace modelexport::model
