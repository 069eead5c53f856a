#include "own_record.hpp"

#include <nlohmann/json.hpp>

#include "mx/common/module_path.hpp"

namespace mx::metadata {

using mx::common::is_valid_module_path;
namespace {

const char kDocPrefix[] = "modelexport:";

std::optional<OwnRecord> from_metadata(const mx_strategy::Graph& graph, size_t node) {
  auto module = graph.metadata(node, "modelexport.module");
  if (!module) return std::nullopt;
  return OwnRecord{std::move(*module), graph.metadata(node, "modelexport.evidence").value_or("")};
}

std::optional<OwnRecord> from_doc_string(std::string_view doc, std::string& problem) {
  if (doc.substr(0, sizeof kDocPrefix - 1) != kDocPrefix) return std::nullopt;
  auto parsed = nlohmann::json::parse(doc.begin() + (sizeof kDocPrefix - 1), doc.end(), nullptr,
                                      /*allow_exceptions=*/false);
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

std::optional<OwnRecord> read_own_record(const mx_strategy::Graph& graph, size_t node, std::string& problem) {
  auto record = from_metadata(graph, node);
  if (!record) record = from_doc_string(graph.doc_string(node), problem);
  if (!record) return std::nullopt;
  if (!is_valid_module_path(record->module)) {
    problem = "module '" + record->module + "' is not a module path";
    return std::nullopt;
  }
  if (record->evidence == "propagated" || record->evidence == "root") return std::nullopt;
  return record;
}

}  // namespace mx::metadata
