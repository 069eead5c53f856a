#include "tagging/strategy_evidence.hpp"

#include <algorithm>

namespace modelexport {

bool is_strategy_evidence(const std::string& evidence) {
  static const std::vector<std::string> allowed = {"direct", "scope", "metadata",
                                                   "parameter"};
  return std::find(allowed.begin(), allowed.end(), evidence) != allowed.end();
}

}  // namespace modelexport
