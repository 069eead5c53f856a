// The test oracle of the hierarchy writer: the document as a JSON value
// (nlohmann::ordered_json), built member by member. dump_text of it is what
// hierarchy::document_text must give, byte for byte.
#pragma once
#include "hierarchy/document.hpp"
#include "hierarchy/document_text.hpp"

namespace mx::hierarchy {

Json module_to_json(const Module& m);
Json modules_to_json(const std::vector<Module>& modules);
Json document_to_json(const Document& doc);

}  // namespace mx::hierarchy
