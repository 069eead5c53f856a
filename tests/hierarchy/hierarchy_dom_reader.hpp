// The test oracle of the hierarchy reader: the JSON-tree reader the SDK
// had before its one reader (sdk/src/hierarchy/document_reader.cpp), field
// by field, in check order. tests/hierarchy/test_document_reader.cpp holds the
// reader to it: the same Document, or the same message, for every text.
#pragma once
#include <string>

#include "hierarchy/document.hpp"

namespace mx::hierarchy::oracle {

// The fields of a document (no cross-checks: validate_consistency).
Document dom_parse_document(const Json& json, const std::string& where);
// One record alone (`name` optional), as node metadata carries it.
NodeRecord dom_parse_record(const Json& json, const std::string& where);
// A "modules" array alone.
std::vector<Module> dom_parse_modules(const Json& json, const std::string& where);

}  // namespace mx::hierarchy::oracle
