// Shared pieces of the `modelexport` command line tool. The CLI uses only
// the public API (modelexport.hpp), like any other embedder would.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mx::cli {

// A usage mistake: reported with exit code 2 (failures exit with 1).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "direct 96.8%, propagated 3.2%" from statistics.evidence (non-zero only).
std::string evidence_mix(const nlohmann::json& statistics);

// The files a model save to `out` writes (mx_model_save_file): the model,
// its sidecar and its external data.
std::vector<std::string> save_targets(const std::string& out);

// Refuses an output file that is the source file itself (`export m.pt -o
// m.pt`): MX_ERR_INVALID_ARGUMENT naming both.
void refuse_overwriting_source(const std::string& source, const std::vector<std::string>& targets);

// Writes text to `path` with the SDK's writer (mx_write_file): O_EXCL
// temporary with an unpredictable name, rename; never follows a symlink.
void write_text_atomically(const std::string& path, const std::string& text);

}  // namespace mx::cli
