// Evidence kinds (docs/hierarchy-schema.md). Strategies may claim only the
// first four; "propagated" and "root" are produced by the core alone, so the
// statistics honestly separate what was observed from what was inferred.
#pragma once
#include <string>
#include <vector>

namespace modelexport {

bool is_strategy_evidence(const std::string& evidence);

constexpr const char* kEvidenceParameter = "parameter";
constexpr const char* kEvidencePropagated = "propagated";
constexpr const char* kEvidenceRoot = "root";

}  // namespace modelexport
