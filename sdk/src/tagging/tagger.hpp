// mx_registry_tag's work: graph view → strategy request → strategy plugin(s)
// → validated assignments → propagation → module tree → hierarchy document
// stored on the model.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "progress/progress.hpp"
#include "registry/registry.hpp"

namespace mx {

// `options`: {"hierarchy": doc|path, "strategy_options": {...}}; unknown keys
// are MX_ERR_INVALID_ARGUMENT. Reports "tag" (strategies run / to run) and
// "propagate" to `progress`; cancelled, it leaves the model unchanged.
void tag_model(const Registry& registry, const std::string& strategy, mx_model* model,
               const nlohmann::json& options, Progress& progress);

}  // namespace mx
