// Writing hierarchy documents. Statistics are recomputed on every write so
// they can never disagree with the records.
#pragma once
#include "hierarchy/document.hpp"

namespace modelexport::hierarchy {

Json module_to_json(const Module& m);
Json modules_to_json(const std::vector<Module>& modules);
Json statistics_json(const Document& doc);
Json document_to_json(const Document& doc);

}  // namespace modelexport::hierarchy
