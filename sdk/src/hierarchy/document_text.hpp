// The one writer of hierarchy documents (docs/hierarchy-schema.md): JSON
// text written straight from the Document, without building a JSON value
// first (for a million modules the value cost a third of a tagging run).
// The layout is nlohmann's dump(indent); tests/hierarchy/hierarchy_dom_writer
// builds the same document as a JSON value, the oracle the tests compare
// this writer with. Statistics are recomputed on every write, so they can
// never disagree with the records.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hierarchy/document.hpp"

namespace mx::hierarchy {

// `indent` < 0: compact; else spaces per level, as nlohmann's dump(indent).
std::string document_text(const Document& doc, int indent);

// Receives a document's text in order, a piece at a time.
using TextSink = std::function<void(std::string_view)>;

// The same text as document_text, handed to `sink` in pieces of about
// `piece` bytes (cut between modules and records) instead of returned
// whole: a file is written without a buffer of the whole document (tens of
// megabytes of fresh memory for a large model). An exception from `sink`
// ends the writing and propagates.
void write_document_text(const Document& doc, int indent, const TextSink& sink, size_t piece);
std::string modules_text(const std::vector<Module>& modules);

// The document's "statistics" object: node count, evidence mix, at_root.
Json statistics_json(const Document& doc);

}  // namespace mx::hierarchy
