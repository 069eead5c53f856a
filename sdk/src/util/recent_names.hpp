// The last few names given an id, remembered in a ring: most inputs of a
// node read a value a node just before produced, and comparing a few short
// names is cheaper than a probe of a table of 200,000 (a cache miss each).
// Used where a graph's value names are interned (model/value_table,
// tagging/graph_edges). Views: the names must outlive it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

namespace mx {

class RecentNames {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;

  void add(std::string_view name, uint32_t id) {
    slots_[next_] = {name, id};
    next_ = (next_ + 1) % kSlots;
  }
  // The id of `name` if it is among the last few added, else kAbsent.
  uint32_t find(std::string_view name) const {
    for (const auto& [seen, id] : slots_)
      if (id != kAbsent && seen.size() == name.size() && seen == name) return id;
    return kAbsent;
  }

 private:
  static constexpr size_t kSlots = 8;
  // Empty slots hold no id: a default {"", 0} answered id 0 for an omitted
  // ("") input among the first few nodes.
  std::pair<std::string_view, uint32_t> slots_[kSlots] = {{{}, kAbsent}, {{}, kAbsent}, {{}, kAbsent},
                                                          {{}, kAbsent}, {{}, kAbsent}, {{}, kAbsent},
                                                          {{}, kAbsent}, {{}, kAbsent}};
  size_t next_ = 0;
};

}  // namespace mx
