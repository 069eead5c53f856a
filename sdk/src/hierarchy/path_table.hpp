// A hash index from strings held elsewhere (module paths) to their
// positions: open addressing in one flat array, no allocation per entry.
// At a million modules std::unordered_map spent a fifth of `inspect` in
// node allocations and the cache misses of following them (bucket, node,
// key); a lookup here touches one slot and, on a hash match, the key.
// (tsl::robin_map, Debian's robin-map-dev, would do the same; this is the
// part of it the module indexes need, without a new build dependency.)
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace modelexport::hierarchy {

class PathTable {
 public:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  void reserve(size_t entries);
  // Adds `key` at `position` unless an equal key is there: returns the
  // position the key has now (the first one wins). The characters `key`
  // views must outlive the table and stay where they are.
  size_t insert(std::string_view key, size_t position);
  size_t find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != kNone; }
  size_t size() const { return size_; }
  void clear();

 private:
  struct Slot {
    std::string_view key;
    uint32_t hash = 0;
    uint32_t position = kEmpty;  // kEmpty: a free slot
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;
  static uint32_t hash_of(std::string_view key);
  void grow();

  std::vector<Slot> slots_;  // a power of two, at most half full
  size_t size_ = 0;
};

}  // namespace modelexport::hierarchy
