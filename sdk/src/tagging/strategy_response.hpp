// Reading a strategy's answer (docs/plugin-protocol.md, "assign"). Anything
// out of contract — a node index out of range, an evidence kind the core
// reserves, a malformed module path — is the plugin's fault: MX_ERR_PLUGIN
// naming the plugin and the offending entry.
#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tagging/assignment.hpp"

namespace modelexport {

struct StrategyAnswer {
  Assignments assignments;                     // one slot per node
  std::map<std::string, std::string> classes;  // module path → class
};

StrategyAnswer parse_strategy_response(const std::string& plugin,
                                       const nlohmann::json& response,
                                       size_t node_count);

// "auto": the first answer that places a node wins (answers in priority
// order); classes likewise.
StrategyAnswer combine_answers(const std::vector<StrategyAnswer>& answers,
                               size_t node_count);

}  // namespace modelexport
