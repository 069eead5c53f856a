#include "save_summary.hpp"

#include <cstdio>

#include "cli.hpp"

namespace mx::cli {

void validate_tag_storage(const std::string& tag_storage) {
  if (tag_storage != "metadata" && tag_storage != "doc_string" && tag_storage != "none")
    throw UsageError("--tag-storage must be metadata, doc_string or none, not '" + tag_storage + "'");
}

void save_and_report(const Model& model, const std::string& path, const std::string& tag_storage, bool check,
                     const nlohmann::json& external_data, ProgressBar* progress) {
  validate_tag_storage(tag_storage);
  nlohmann::json options{{"tag_storage", tag_storage}, {"check", check}};
  if (external_data.is_object()) options.update(external_data);  // {} at a call site is null
  model.save_file(path, options.dump(), progress ? progress->listener() : nullptr);
  if (progress) progress->clear();
  // The counts alone: the whole document (what the sidecar just got) would
  // be written again and parsed to print two numbers.
  const auto counts = nlohmann::json::parse(model.modules_json(R"({"rows": false, "statistics": true})"));
  std::printf("wrote %s: %zu nodes, %zu modules\n", path.c_str(), model.node_count(),
              counts["module_count"].get<size_t>());
  std::printf("evidence: %s\n", evidence_mix(counts["statistics"]).c_str());
}

}  // namespace mx::cli
