// Shared pieces of the `modelexport` command line tool. The CLI uses only
// the public API (modelexport.hpp), like any other embedder would.
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace modelexport::cli {

// A usage mistake: reported with exit code 2 (failures exit with 1).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Minimal option parser: flags (--json), options with a value (-o X, may
// repeat) and positionals. Anything else is a UsageError.
class Args {
 public:
  Args(const std::vector<std::string>& argv, const std::vector<std::string>& flags,
       const std::vector<std::string>& valued);
  bool flag(const std::string& name) const;
  // Last value of an option, or `fallback`.
  std::string value(const std::string& name, const std::string& fallback = "") const;
  std::vector<std::string> values(const std::string& name) const;
  const std::vector<std::string>& positionals() const { return positionals_; }
  // Exactly `n` positionals, else UsageError mentioning `what`.
  void expect_positionals(size_t n, const std::string& what) const;

 private:
  std::map<std::string, std::vector<std::string>> options_;
  std::vector<std::string> flags_;
  std::vector<std::string> positionals_;
};

using Command = int (*)(const std::vector<std::string>& args);

int cmd_plugins(const std::vector<std::string>& args);
int cmd_inspect(const std::vector<std::string>& args);
int cmd_export(const std::vector<std::string>& args);
int cmd_tag(const std::vector<std::string>& args);
int cmd_hierarchy(const std::vector<std::string>& args);
int cmd_functions(const std::vector<std::string>& args);
int cmd_extract(const std::vector<std::string>& args);
int cmd_validate(const std::vector<std::string>& args);

// "direct 96.8%, propagated 3.2%" from statistics.evidence (non-zero only).
std::string evidence_mix(const nlohmann::json& statistics);

// The files a model save to `out` writes (mx_model_save_file): the model,
// its sidecar and its external data.
std::vector<std::string> save_targets(const std::string& out);

// Refuses an output file that is the source file itself (`export m.pt -o
// m.pt`): MX_ERR_INVALID_ARGUMENT naming both.
void refuse_overwriting_source(const std::string& source,
                               const std::vector<std::string>& targets);

// Writes text to `path` with the SDK's writer (mx_write_file): O_EXCL
// temporary with an unpredictable name, rename; never follows a symlink.
void write_text_atomically(const std::string& path, const std::string& text);

}  // namespace modelexport::cli
