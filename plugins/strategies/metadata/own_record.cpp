#include "own_record.hpp"

#include <nlohmann/json.hpp>

#include "mx/common/module_path.hpp"

namespace mx_metadata {

using mx::common::is_valid_module_path;
namespace {

const char kDocPrefix[] = "modelexport:";

std::optional<OwnRecord> from_metadata(const nlohmann::json& metadata,
                                       std::string& problem) {
  if (!metadata.is_object()) return std::nullopt;
  auto module = metadata.find("modelexport.module");
  if (module == metadata.end()) return std::nullopt;
  if (!module->is_string()) {
    problem = "modelexport.module is not a string";
    return std::nullopt;
  }
  OwnRecord record{module->get<std::string>(), ""};
  auto evidence = metadata.find("modelexport.evidence");
  if (evidence != metadata.end() && evidence->is_string())
    record.evidence = evidence->get<std::string>();
  return record;
}

std::optional<OwnRecord> from_doc_string(const std::string& doc,
                                         std::string& problem) {
  if (doc.compare(0, sizeof kDocPrefix - 1, kDocPrefix) != 0) return std::nullopt;
  auto parsed = nlohmann::json::parse(doc.begin() + (sizeof kDocPrefix - 1),
                                      doc.end(), nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object() || !parsed.contains("module") || !parsed["module"].is_string()) {
    problem = "doc_string record is not {\"module\": \"…\", …}";
    return std::nullopt;
  }
  OwnRecord record{parsed["module"].get<std::string>(), ""};
  if (parsed.contains("evidence") && parsed["evidence"].is_string())
    record.evidence = parsed["evidence"].get<std::string>();
  return record;
}

}  // namespace

std::optional<OwnRecord> read_own_record(const nlohmann::json& metadata,
                                         const std::string& doc_string,
                                         std::string& problem) {
  auto record = from_metadata(metadata, problem);
  if (!record && problem.empty()) record = from_doc_string(doc_string, problem);
  if (!record) return std::nullopt;
  if (!is_valid_module_path(record->module)) {
    problem = "module '" + record->module + "' is not a module path";
    return std::nullopt;
  }
  if (record->evidence == "propagated" || record->evidence == "root")
    return std::nullopt;
  return record;
}

}  // namespace mx_metadata
