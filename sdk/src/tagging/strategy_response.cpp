#include "tagging/strategy_response.hpp"

#include "tagging/strategy_evidence.hpp"
#include "mx/common/module_path.hpp"
#include "util/error.hpp"
#include "util/utf8.hpp"

namespace mx {
using mx::common::is_valid_module_path;
namespace {

using json = nlohmann::json;

constexpr const char* kResponseSchema = "modelexport.strategy-response/1";

[[noreturn]] void bad(const std::string& plugin, const std::string& what) {
  fail(MX_ERR_PLUGIN, "plugin '" + plugin + "' answered badly: " + what);
}

std::string string_field(const std::string& plugin, const json& entry, const char* key,
                         const std::string& where) {
  if (!entry.contains(key) || !entry.at(key).is_string())
    bad(plugin, where + ": \"" + key + "\" must be a string");
  return entry.at(key).get<std::string>();
}

size_t node_field(const std::string& plugin, const json& entry, const Assignments& slots,
                  const std::string& where) {
  if (!entry.contains("node") || !entry.at("node").is_number_integer())
    bad(plugin, where + ": \"node\" must be an integer index");
  const long long node = entry.at("node").get<long long>();
  const std::string problem = node_problem(slots, node);
  if (!problem.empty()) bad(plugin, where + ": " + problem);
  return static_cast<size_t>(node);
}

Assignment checked_assignment(const std::string& plugin, const json& entry, const std::string& where) {
  std::string module = string_field(plugin, entry, "module", where);
  const std::string evidence = string_field(plugin, entry, "evidence", where);
  const std::string problem = placement_problem(module, evidence);
  if (!problem.empty()) bad(plugin, where + ": " + problem);
  return Assignment{std::move(module), strategy_evidence(evidence)};
}

void read_assignments(const std::string& plugin, const json& list, StrategyAnswer& out) {
  if (!list.is_array()) bad(plugin, "\"assignments\" must be an array");
  for (size_t i = 0; i < list.size(); ++i) {
    std::string where = "assignments[" + std::to_string(i) + "]";
    if (!list[i].is_object()) bad(plugin, where + " must be an object");
    size_t node = node_field(plugin, list[i], out.assignments, where);
    out.assignments[node] = checked_assignment(plugin, list[i], where);
  }
}

void read_classes(const std::string& plugin, const json& list, StrategyAnswer& out) {
  if (!list.is_array()) bad(plugin, "\"modules\" must be an array");
  for (size_t i = 0; i < list.size(); ++i) {
    std::string where = "modules[" + std::to_string(i) + "]";
    if (!list[i].is_object()) bad(plugin, where + " must be an object");
    std::string path = string_field(plugin, list[i], "path", where);
    const std::string problem = module_path_problem(path);
    if (!problem.empty()) bad(plugin, where + ": " + problem);
    out.classes.emplace(path, string_field(plugin, list[i], "class", where));
  }
}

}  // namespace

std::string node_problem(const Assignments& slots, long long node) {
  if (node < 0 || static_cast<unsigned long long>(node) >= slots.size())
    return "node " + std::to_string(node) + " is out of range (graph has " + std::to_string(slots.size()) +
           " nodes)";
  if (slots[static_cast<size_t>(node)].placed()) return "node " + std::to_string(node) + " assigned twice";
  return {};
}

std::string module_path_problem(const std::string& path) {
  // Invalid UTF-8 would be kept raw in node metadata but replaced (U+FFFD)
  // in the tree and sidecar: two names for one module.
  if (!is_valid_utf8(path)) return "invalid module path '" + printable(path) + "' (not UTF-8)";
  return is_valid_module_path(path) ? std::string() : "invalid module path '" + printable(path) + "'";
}

std::string evidence_problem(std::string_view evidence) {
  return strategy_evidence(evidence)
             ? std::string()
             : "evidence '" + printable(evidence) + "' is not one of direct, scope, metadata, parameter";
}

std::string placement_problem(const std::string& module, std::string_view evidence) {
  std::string problem = module_path_problem(module);
  return problem.empty() ? evidence_problem(evidence) : problem;
}

StrategyAnswer parse_strategy_response(const std::string& plugin, const json& response, size_t node_count) {
  if (!response.is_object()) bad(plugin, "the response is not a JSON object");
  // Not response.value("schema", ""): it throws json::type_error when a
  // plugin answers a non-string (fuzz/corpus/strategy_response/schema_number).
  const auto schema = response.find("schema");
  if (schema == response.end() || !schema->is_string() || *schema != kResponseSchema)
    bad(plugin, std::string("\"schema\" must be \"") + kResponseSchema + "\"");
  if (!response.contains("assignments")) bad(plugin, "no \"assignments\"");
  StrategyAnswer out;
  out.assignments.resize(node_count);
  read_assignments(plugin, response.at("assignments"), out);
  if (response.contains("modules")) read_classes(plugin, response.at("modules"), out);
  return out;
}

StrategyAnswer combine_answers(std::vector<StrategyAnswer>&& answers, size_t node_count) {
  // Earlier answers win. The first is taken whole (one strategy is the
  // common case: copying its 200,000 slots, a string each, was a tenth of
  // propagation's time); later ones fill the slots still empty.
  StrategyAnswer out;
  if (!answers.empty()) out = std::move(answers.front());
  out.assignments.resize(node_count);
  for (size_t k = 1; k < answers.size(); ++k) {
    StrategyAnswer& answer = answers[k];
    for (size_t i = 0; i < node_count; ++i)
      if (!out.assignments[i].placed() && answer.assignments[i].placed())
        out.assignments[i] = std::move(answer.assignments[i]);
    for (auto& kv : answer.classes) out.classes.emplace(kv.first, std::move(kv.second));  // keeps the first
  }
  answers.clear();
  return out;
}

}  // namespace mx
