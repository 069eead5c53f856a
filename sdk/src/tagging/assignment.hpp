// A node's place in the hierarchy and how it was decided.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "hierarchy/evidence.hpp"

namespace mx {

// Default-constructed: not placed yet (no strategy or rule has placed the
// node). The evidence is the record's kind itself, checked once where a
// strategy's answer comes in: at 200,000 nodes a name per node (a string,
// and an optional around the whole) was 72 bytes a slot of fresh pages,
// compared as text in the sink and converted back for every record.
struct Assignment {
  std::string module;                           // module path, "" = root
  std::optional<hierarchy::Evidence> evidence;  // none: not placed

  bool placed() const { return evidence.has_value(); }
};

// One slot per graph node (index = position in the graph view); unplaced
// slots are nodes no strategy placed. After propagation every slot is
// placed, and the same vector is the answer (no second copy of it).
using Assignments = std::vector<Assignment>;

}  // namespace mx
