// How a node's module assignment was made (docs/hierarchy-schema.md). The
// share of each kind is the honest quality figure, so the set is closed.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace mx::hierarchy {

enum class Evidence { direct, scope, metadata, parameter, propagated, root };

inline constexpr std::array<Evidence, 6> kAllEvidence = {Evidence::direct,     Evidence::scope,
                                                         Evidence::metadata,   Evidence::parameter,
                                                         Evidence::propagated, Evidence::root};

const char* evidence_name(Evidence e);
std::optional<Evidence> evidence_from_name(std::string_view name);
// "direct|scope|metadata|parameter|propagated|root", for error messages.
std::string evidence_choices();

}  // namespace mx::hierarchy
