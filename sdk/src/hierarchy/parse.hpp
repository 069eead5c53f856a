// Reading and validating hierarchy documents, from text or from a JSON
// tree, by the one reader (document_reader.cpp, fields in fields.hpp); the
// cross-checks are consistency.cpp's. Every error is MX_ERR_SCHEMA
// (MX_ERR_PARSE for malformed JSON) and names the offending field by its
// JSON path, e.g. "hierarchy: nodes[3].evidence: 'foo' is not one of ...".
#pragma once
#include <string>
#include <string_view>

#include "hierarchy/document.hpp"

namespace mx::hierarchy {

// `where` prefixes messages: "hierarchy", or a sidecar's file name.
Document parse_document(const Json& json, const std::string& where);
// The same for a document held as nlohmann::json (a supplied hierarchy),
// read in place rather than converted first.
Document parse_document(const nlohmann::json& json, const std::string& where);
Document parse_document_text(std::string_view text, const std::string& where);

// The "modules" array alone (model-level metadata stores only that).
std::vector<Module> parse_modules(const Json& json, const std::string& where);

// One entry of a "modules" array, held as nlohmann::json (a supplied
// hierarchy's), read as parse_modules reads entry `at` of its array.
Module parse_module_entry(const nlohmann::json& entry, const std::string& where, const std::string& at);

// "modelexport.hierarchy/1" or a later minor version of it.
bool is_supported_schema(const std::string& schema);

// One record; `name` is optional here (the caller knows the node).
NodeRecord parse_record(const Json& json, const std::string& where);

// Cross-checks: unique module paths, existing parents/children, unique node
// names, record modules present in the tree (when there is a tree).
void validate_consistency(const Document& doc, const std::string& where);
// The same with the document's index (shared with the passes after it).
void validate_consistency(const Document& doc, const ModuleIndex& paths, const std::string& where);
// Its second half, for a document whose modules passed it already: unique
// record keys, record modules present in the tree.
void validate_records(const Document& doc, const ModuleIndex& paths, const std::string& where);

}  // namespace mx::hierarchy
