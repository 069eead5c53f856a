#include "save_summary.hpp"

#include <cstdio>

#include "cli.hpp"

namespace modelexport::cli {

void validate_tag_storage(const std::string& tag_storage) {
  if (tag_storage != "metadata" && tag_storage != "doc_string" && tag_storage != "none")
    throw UsageError("--tag-storage must be metadata, doc_string or none, not '" + tag_storage + "'");
}

void save_and_report(const Model& model, const std::string& path, const std::string& tag_storage,
                     bool check, bool external_data, ProgressBar* progress) {
  validate_tag_storage(tag_storage);
  nlohmann::json options{{"tag_storage", tag_storage}, {"check", check}};
  if (external_data) options["external_data"] = true;
  model.save_file(path, options.dump(), progress ? progress->listener() : nullptr);
  if (progress) progress->clear();
  const auto hierarchy = nlohmann::json::parse(model.hierarchy_json());
  std::printf("wrote %s: %zu nodes, %zu modules\n", path.c_str(), model.node_count(),
              hierarchy["modules"].size());
  std::printf("evidence: %s\n", evidence_mix(hierarchy["statistics"]).c_str());
}

}  // namespace modelexport::cli
