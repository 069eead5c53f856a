// Saving a model from a subcommand and reporting what was written.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.hpp"
#include "progress_bar.hpp"

namespace mx::cli {

// UsageError unless metadata|doc_string|none (checked before any work).
void validate_tag_storage(const std::string& tag_storage);

// Saves `model` to `path` (with sidecar; `external_data`: the save options
// "external_data" / "external_data_over" that say where the weights go,
// {} for the default: external only when needed) and prints "wrote PATH:
// N nodes, evidence: ...". `progress` (may be null) shows the save and is
// cleared before the summary.
void save_and_report(const Model& model, const std::string& path, const std::string& tag_storage,
                     bool check = true, const nlohmann::json& external_data = nlohmann::json::object(),
                     ProgressBar* progress = nullptr);

}  // namespace mx::cli
