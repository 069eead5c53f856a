// A node's place in the hierarchy and how it was decided.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace modelexport {

struct Assignment {
  std::string module;    // module path, "" = root
  std::string evidence;  // see tagging/strategy_evidence.hpp
};

// One slot per graph node (index = position in the graph view); empty slots
// are nodes no strategy placed.
using Assignments = std::vector<std::optional<Assignment>>;

}  // namespace modelexport
