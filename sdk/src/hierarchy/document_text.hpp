// Hierarchy documents written as JSON text without building a JSON value:
// byte for byte what dump_text(document_to_json(doc), indent) and
// dump_text(modules_to_json(modules)) give (serialize.hpp), for documents
// of a million modules (the DOM of one, built and dumped for the sidecar,
// the model metadata and mx_model_hierarchy_json, was a third of a tag).
#pragma once
#include <string>
#include <vector>

#include "hierarchy/document.hpp"

namespace modelexport::hierarchy {

// `indent` < 0: compact; else spaces per level, as nlohmann's dump(indent).
std::string document_text(const Document& doc, int indent);
std::string modules_text(const std::vector<Module>& modules);

}  // namespace modelexport::hierarchy
