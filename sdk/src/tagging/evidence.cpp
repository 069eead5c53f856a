#include "tagging/evidence.hpp"

#include <algorithm>

namespace modelexport {

const std::vector<std::string>& all_evidence_kinds() {
  static const std::vector<std::string> kinds = {
      "direct", "scope", "metadata", "parameter", "propagated", "root"};
  return kinds;
}

bool is_strategy_evidence(const std::string& evidence) {
  static const std::vector<std::string> allowed = {"direct", "scope", "metadata",
                                                   "parameter"};
  return std::find(allowed.begin(), allowed.end(), evidence) != allowed.end();
}

}  // namespace modelexport
