#include "tagging/strategy_evidence.hpp"

namespace modelexport {

std::optional<hierarchy::Evidence> strategy_evidence(std::string_view name) {
  using hierarchy::Evidence;
  for (Evidence e : {Evidence::direct, Evidence::scope, Evidence::metadata, Evidence::parameter})
    if (name == hierarchy::evidence_name(e)) return e;
  return std::nullopt;
}

}  // namespace modelexport
