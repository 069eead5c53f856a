#include "hierarchy/evidence.hpp"

namespace mx::hierarchy {

const char* evidence_name(Evidence e) {
  switch (e) {
    case Evidence::direct:
      return "direct";
    case Evidence::scope:
      return "scope";
    case Evidence::metadata:
      return "metadata";
    case Evidence::parameter:
      return "parameter";
    case Evidence::propagated:
      return "propagated";
    case Evidence::root:
      return "root";
  }
  return "root";
}

std::optional<Evidence> evidence_from_name(std::string_view name) {
  for (Evidence e : kAllEvidence)
    if (name == evidence_name(e)) return e;
  return std::nullopt;
}

std::string evidence_choices() {
  std::string out;
  for (Evidence e : kAllEvidence) out += (out.empty() ? "" : "|") + std::string(evidence_name(e));
  return out;
}

}  // namespace mx::hierarchy
