// Dense ids for names, in the order they are first added: the value
// names of a graph (model/value_table.hpp), the module paths propagation
// knows (tagging/module_facts.hpp).
//
// The hash table holds only each id and its 32-bit hash (12 bytes a slot;
// a tsl::robin_map of string views held 32), and the id → name list is
// kept beside it. At 200,000 nodes the tables were 16 MB each: most of
// their time went to first touching those pages and to cache misses, and
// the stored hash still spares a key comparison on nearly every probe
// that is not the name looked for. Names are views: their text must
// outlive the index.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include <tsl/robin_set.h>

namespace modelexport::model {

class NameIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  NameIndex()
      : names_(std::make_unique<std::vector<std::string_view>>()),
        ids_(0, Hash{names_.get()}, Equal{names_.get()}) {}

  void reserve(size_t n) {
    names_->reserve(n);
    ids_.reserve(n);
  }
  size_t size() const { return names_->size(); }
  std::string_view name(uint32_t id) const { return (*names_)[id]; }

  // kNone when `name` has no id.
  uint32_t find(std::string_view name) const {
    auto it = ids_.find(name);
    return it == ids_.end() ? kNone : *it;
  }
  // The id of `name`, and whether it was added just now (as the next id).
  std::pair<uint32_t, bool> intern(std::string_view name) {
    const size_t hash = std::hash<std::string_view>()(name);
    auto it = ids_.find(name, hash);
    if (it != ids_.end()) return {*it, false};
    const auto id = static_cast<uint32_t>(names_->size());
    names_->push_back(name);
    ids_.insert(id);
    return {id, true};
  }
  // `id` now reads the same text from `same_text` (e.g. a copy the caller
  // keeps longer than the view it was added with). The hash is unchanged.
  void repoint(uint32_t id, std::string_view same_text) { (*names_)[id] = same_text; }

 private:
  using Names = std::vector<std::string_view>;
  // Ids hash and compare as their names; `names` is on the heap, so the
  // pointer stays valid when the index moves.
  struct Hash {
    const Names* names;
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
    size_t operator()(uint32_t id) const { return (*this)((*names)[id]); }
  };
  struct Equal {
    const Names* names;
    using is_transparent = void;
    bool operator()(uint32_t a, uint32_t b) const { return a == b; }
    bool operator()(std::string_view s, uint32_t id) const { return s == (*names)[id]; }
    bool operator()(uint32_t id, std::string_view s) const { return s == (*names)[id]; }
  };

  std::unique_ptr<Names> names_;
  tsl::robin_set<uint32_t, Hash, Equal, std::allocator<uint32_t>, /*StoreHash=*/true> ids_;
};

}  // namespace modelexport::model
