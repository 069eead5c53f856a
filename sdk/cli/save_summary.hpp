// Saving a model from a subcommand and reporting what was written.
#pragma once
#include <string>

#include "modelexport/modelexport.hpp"
#include "progress_bar.hpp"

namespace mx::cli {

// UsageError unless metadata|doc_string|none (checked before any work).
void validate_tag_storage(const std::string& tag_storage);

// Saves `model` to `path` (with sidecar; with `external_data`, weights in
// `path`.data, else external only when needed) and
// prints "wrote PATH: N nodes, evidence: ...". `progress` (may be null)
// shows the save and is cleared before the summary.
void save_and_report(const Model& model, const std::string& path, const std::string& tag_storage,
                     bool check = true, bool external_data = false, ProgressBar* progress = nullptr);

}  // namespace mx::cli
