// Reading a strategy's answer (docs/plugin-protocol.md, "assign"). Anything
// out of contract — a node index out of range, an evidence kind the core
// reserves, a malformed module path — is the plugin's fault: MX_ERR_PLUGIN
// naming the plugin and the offending entry.
#pragma once
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tagging/assignment.hpp"

namespace mx {

struct StrategyAnswer {
  Assignments assignments;                     // one slot per node
  std::map<std::string, std::string> classes;  // module path → class
};

// The rules of every answer, JSON or through the host's sink
// (strategy_answer_sink.hpp): "" when allowed, else what is wrong (outside
// text quoted through printable()).
// `node` may be placed: in range of `slots` and not placed yet.
std::string node_problem(const Assignments& slots, long long node);
// A path a strategy may name.
std::string module_path_problem(const std::string& path);
// Evidence a strategy may claim (strategy_evidence.hpp gives its kind).
std::string evidence_problem(std::string_view evidence);
// A placement a strategy may claim: a valid path and strategy evidence
// (strategy_evidence.hpp, which then gives the kind).
std::string placement_problem(const std::string& module, std::string_view evidence);

StrategyAnswer parse_strategy_response(const std::string& plugin, const nlohmann::json& response,
                                       size_t node_count);

// "auto": the first answer that places a node wins (answers in priority
// order); classes likewise. The answers are consumed (moved from).
StrategyAnswer combine_answers(std::vector<StrategyAnswer>&& answers, size_t node_count);

}  // namespace mx
