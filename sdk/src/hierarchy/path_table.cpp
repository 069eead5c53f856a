#include "hierarchy/path_table.hpp"

#include <functional>

#include "util/error.hpp"

namespace modelexport::hierarchy {

uint32_t PathTable::hash_of(std::string_view key) {
  const uint64_t h = std::hash<std::string_view>()(key);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

void PathTable::reserve(size_t entries) {
  size_t capacity = 16;
  while (capacity < 2 * entries) capacity *= 2;
  if (capacity <= slots_.size()) return;
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(capacity, Slot{});
  const size_t mask = capacity - 1;
  for (const Slot& s : old) {
    if (s.position == kEmpty) continue;
    size_t i = s.hash & mask;
    while (slots_[i].position != kEmpty) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void PathTable::grow() { reserve(slots_.empty() ? 8 : slots_.size()); }

size_t PathTable::insert(std::string_view key, size_t position) {
  // Positions are stored in 32 bits (a table of 4 billion paths is not
  // a module tree).
  if (position >= kEmpty) fail(MX_ERR_UNSUPPORTED, "more than 4,294,967,294 modules");
  if (2 * (size_ + 1) > slots_.size()) grow();
  const uint32_t h = hash_of(key);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.position == kEmpty) {
      s = Slot{key, h, static_cast<uint32_t>(position)};
      ++size_;
      return position;
    }
    if (s.hash == h && s.key == key) return s.position;
  }
}

size_t PathTable::find(std::string_view key) const {
  if (slots_.empty()) return kNone;
  const uint32_t h = hash_of(key);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.position == kEmpty) return kNone;
    if (s.hash == h && s.key == key) return s.position;
  }
}

void PathTable::clear() {
  slots_.clear();
  size_ = 0;
}

}  // namespace modelexport::hierarchy
