// A hash index from strings held elsewhere (module paths) to their
// positions. At a million modules std::unordered_map spent a fifth of
// `inspect` in node allocations and the cache misses of following them
// (bucket, node, key); tsl::robin_map (Debian's robin-map-dev) keeps the
// entries in one flat array with their hashes, so a lookup touches one
// slot and, on a hash match, the key. This class is the small interface
// the module indexes use.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

#include <tsl/robin_map.h>

namespace mx::hierarchy {

class PathTable {
 public:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  PathTable() { map_.max_load_factor(kMaxLoad); }
  void reserve(size_t entries) { map_.reserve(entries); }
  // Adds `key` at `position` unless an equal key is there: returns the
  // position the key has now (the first one wins). The characters `key`
  // views must outlive the table and stay where they are.
  size_t insert(std::string_view key, size_t position);
  size_t find(std::string_view key) const {
    auto it = map_.find(key);
    return it == map_.end() ? kNone : it->second;
  }
  bool contains(std::string_view key) const { return find(key) != kNone; }
  size_t size() const { return map_.size(); }
  void clear() { map_.clear(); }

 private:
  // Fuller than tsl's default 0.5 (robin hood probing keeps lookups short
  // at this load): half the slots, and building and probing the table is
  // mostly cache misses.
  static constexpr float kMaxLoad = 0.8f;
  // Positions in 32 bits (a table of 4 billion paths is not a module tree);
  // hashes stored beside them so a probe compares keys only on a match.
  tsl::robin_map<std::string_view, uint32_t, std::hash<std::string_view>, std::equal_to<std::string_view>,
                 std::allocator<std::pair<std::string_view, uint32_t>>, /*StoreHash=*/true>
      map_;
};

}  // namespace mx::hierarchy
