// Dense ids for names, in the order they are first added: the value
// names of a graph (model/value_table.hpp), the module paths propagation
// knows (tagging/module_facts.hpp).
//
// An insert-only open-addressing table (linear probing) of 8-byte slots,
// each an id and its name's 32-bit hash, with the id → name list beside
// it. A node-based or wide-slot map spends nearly all of its time in cache
// misses on random slots (docs/performance.md); here a probe mostly reads
// one cache line, the stored hash spares the
// name comparison on nearly every slot that is not the name looked for,
// and prefetch() lets a loop ask for a slot some names ahead of its use.
// Names are views: their text must outlive the index.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace mx::model {

class NameIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  void reserve(size_t n) {
    names_.reserve(n);
    size_t capacity = kMinCapacity;
    while (capacity < 2 * n) capacity *= 2;  // load at most 1/2
    if (capacity > slots_.size()) rehash(capacity);
  }
  size_t size() const { return names_.size(); }
  std::string_view name(uint32_t id) const { return names_[id]; }

  // kNone when `name` has no id.
  uint32_t find(std::string_view name) const {
    if (slots_.empty()) return kNone;
    const uint32_t hash = hash_of(name);
    for (size_t i = hash & mask();; i = (i + 1) & mask()) {
      const Slot s = slots_[i];
      if (s.id == kNone) return kNone;
      if (s.hash == hash && names_[s.id] == name) return s.id;
    }
  }
  // The id of `name`, and whether it was added just now (as the next id).
  std::pair<uint32_t, bool> intern(std::string_view name) {
    if (2 * (names_.size() + 1) > slots_.size()) rehash(std::max(kMinCapacity, 2 * slots_.size()));
    const uint32_t hash = hash_of(name);
    for (size_t i = hash & mask();; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (s.id == kNone) {
        s = Slot{hash, static_cast<uint32_t>(names_.size())};
        names_.push_back(name);
        return {s.id, true};
      }
      if (s.hash == hash && names_[s.id] == name) return {s.id, false};
    }
  }
  // Starts loading the slot `name` would probe first (a hint, no effect
  // on the answers): a loop calls it for a name some steps before it
  // interns or finds that name.
  void prefetch(std::string_view name) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash_of(name) & mask()]);
  }
  // `id` now reads the same text from `same_text` (e.g. a copy the caller
  // keeps longer than the view it was added with). The hash is unchanged.
  void repoint(uint32_t id, std::string_view same_text) { names_[id] = same_text; }

 private:
  struct Slot {
    uint32_t hash = 0;
    uint32_t id = kNone;  // kNone: empty
  };
  static constexpr size_t kMinCapacity = 16;

  static uint32_t hash_of(std::string_view name) {
    return static_cast<uint32_t>(std::hash<std::string_view>()(name));
  }
  size_t mask() const { return slots_.size() - 1; }
  // Slots are placed again by their stored hashes (no name is read).
  void rehash(size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.id != kNone) {
        size_t i = s.hash & mask();
        while (slots_[i].id != kNone) i = (i + 1) & mask();
        slots_[i] = s;
      }
  }

  std::vector<std::string_view> names_;  // id → name
  std::vector<Slot> slots_;              // a power of two of them, or none
};

}  // namespace mx::model
