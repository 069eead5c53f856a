// Evidence kinds (docs/hierarchy-schema.md). Strategies may claim only the
// first four; "propagated" and "root" are produced by the core alone, so the
// statistics honestly separate what was observed from what was inferred.
#pragma once
#include <optional>
#include <string_view>

#include "hierarchy/evidence.hpp"

namespace mx {

// The kind named `name` if a strategy may claim it, else nothing.
std::optional<hierarchy::Evidence> strategy_evidence(std::string_view name);

}  // namespace mx
