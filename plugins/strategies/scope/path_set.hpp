// A set of module paths for the scope strategy: the characters copied once
// into blocks that never move, a flat hash table of views over them
// (tsl::robin_map, Debian's robin-map-dev), each with a mark (the file's
// parameter owners) so no second set is needed. At 200,000 nodes a hash set of
// std::string allocated a node and a string per module, and each lookup
// followed them; a parent's path is a prefix of its child's, so ancestors
// added with a path share its copy.
#pragma once
#include <algorithm>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string_view>
#include <vector>

#include <tsl/robin_map.h>

#include "mx/common/string_blocks.hpp"

namespace mx::scope {

class PathSet {
 public:
  PathSet() = default;
  PathSet(std::initializer_list<std::string_view> paths) {
    for (std::string_view p : paths) add(p);
  }

  // Adds a copy of `path` unless it is there; returns the set's own view.
  std::string_view add(std::string_view path, bool marked = false) {
    auto it = set_.find(path);
    if (it != set_.end()) return it->first;
    const std::string_view own = stored(path);
    set_.emplace(own, marked);
    return own;
  }
  // Adds a view the set already keeps valid (a prefix of one of its
  // paths); true when it was not there.
  bool add_stored(std::string_view own, bool marked = false) { return set_.emplace(own, marked).second; }
  bool contains(std::string_view path) const { return set_.find(path) != set_.end(); }
  bool marked(std::string_view path) const {
    auto it = set_.find(path);
    return it != set_.end() && it->second;
  }
  size_t size() const { return set_.size(); }
  bool empty() const { return set_.empty(); }
  void reserve(size_t n) { set_.reserve(n); }
  // Every path, in no particular order.
  template <class F>
  void each(F f) const {
    for (const auto& entry : set_) f(entry.first);
  }
  template <class Drop>
  void erase_if(Drop drop) {
    std::vector<std::string_view> gone;
    for (const auto& entry : set_)
      if (drop(entry.first)) gone.push_back(entry.first);
    for (std::string_view p : gone) set_.erase(p);
  }

 private:
  std::string_view stored(std::string_view path) { return blocks_.store(path); }

  tsl::robin_map<std::string_view, bool, std::hash<std::string_view>, std::equal_to<std::string_view>,
                 std::allocator<std::pair<std::string_view, bool>>, /*StoreHash=*/true>
      set_;  // path → marked
  mx::common::StringBlocks blocks_;
};

}  // namespace mx::scope
