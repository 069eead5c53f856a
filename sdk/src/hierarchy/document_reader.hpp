// Reads a hierarchy document's text straight into a Document, without a
// JSON tree of the whole file (nlohmann's SAX interface): at a million
// modules the tree, and then copying every string out of it, cost three
// times what reading the text does.
//
// This is the fast path of parse_document_text, for documents that are
// well-formed. Anything it does not read exactly as parse_document would
// (a wrong type, a missing or repeated key, an unknown evidence, a schema
// it does not accept, malformed JSON) makes it give up and return nullopt;
// the caller then reads the text through the JSON tree, which reports the
// problem with its usual message. It never throws for the text's content.
// The cross-checks (validate_consistency) are the caller's.
#pragma once
#include <optional>
#include <string_view>

#include "hierarchy/document.hpp"

namespace modelexport::hierarchy {

std::optional<Document> read_document_fast(std::string_view text);

}  // namespace modelexport::hierarchy
