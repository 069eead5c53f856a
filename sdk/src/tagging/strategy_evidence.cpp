#include "tagging/strategy_evidence.hpp"

#include <array>
#include <utility>

namespace mx {

std::optional<hierarchy::Evidence> strategy_evidence(std::string_view name) {
  using hierarchy::Evidence;
  // The names as hierarchy::evidence_name spells them, read once (each
  // call to it is out of line, and a sink asks per change of evidence).
  static const std::array<std::pair<std::string_view, Evidence>, 4> kinds = [] {
    std::array<std::pair<std::string_view, Evidence>, 4> out;
    const Evidence claimable[] = {Evidence::direct, Evidence::scope, Evidence::metadata, Evidence::parameter};
    for (size_t i = 0; i < out.size(); ++i) out[i] = {hierarchy::evidence_name(claimable[i]), claimable[i]};
    return out;
  }();
  for (const auto& [spelled, kind] : kinds)
    if (name == spelled) return kind;
  return std::nullopt;
}

}  // namespace mx
