// Per-module extraction: the nodes of one module and its descendants as a
// standalone model. Boundary tensors become graph inputs/outputs with an
// element type and a shape (extract/boundary_types.hpp: declared, inferred,
// or generalised from two concrete inferences when dims are dynamic), the
// weights the module uses become its initializers, records are kept.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace mx::extract {

struct ExtractOptions {
  // Copy input-less Constant nodes that feed the module from outside, so
  // the result does not need shape constants fed as inputs.
  bool include_constants = true;
};

ExtractOptions parse_extract_options(const char* options_json);

// MX_ERR_NOT_FOUND for an unknown path (listing the closest paths by edit
// distance) or a module without nodes; MX_ERR_UNSUPPORTED for models with
// modelexport functions or a boundary tensor whose type cannot be inferred.
std::unique_ptr<mx_model> extract_module(const mx_model& model, const std::string& module,
                                         const ExtractOptions& options);

// Levenshtein distance; the `limit` closest of `candidates` to `query`.
size_t edit_distance(const std::string& a, const std::string& b);
std::vector<std::string> closest(const std::string& query, const std::vector<std::string>& candidates,
                                 size_t limit);

}  // namespace mx::extract
