// Per-module statistics for `modelexport inspect` and mx_model_modules_json:
// nodes own/total, parameters own/total, op histograms, and the local
// function each module instance maps to (when the model has functions).
#pragma once
#include <nlohmann/json.hpp>

#include "model/model.hpp"

namespace modelexport::inspect {

nlohmann::ordered_json modules_json(const mx_model& model);

// The module an unknown path is attached to: its nearest ancestor in the
// tree (hashed lookups: linear in the number of modules overall).
std::string nearest_known(const std::string& path, const hierarchy::ModuleIndex& tree);

}  // namespace modelexport::inspect
