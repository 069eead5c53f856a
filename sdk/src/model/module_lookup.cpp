#include "model/module_lookup.hpp"

#include <algorithm>

namespace mx::model {
namespace {

constexpr size_t kUnknown = ModuleLookup::kNone - 1;

// How far from the last answer a path is looked for before searching: a
// node's module is most often the last one, its parent or a sibling.
constexpr size_t kNear = 3;

}  // namespace

ModuleLookup::ModuleLookup(const std::vector<hierarchy::Module>& modules) : modules_(modules) {}

bool ModuleLookup::sorted() {
  if (!sorted_) {
    // Strictly increasing: ordered and no path twice (the index's "first
    // one wins" then has a single candidate).
    bool increasing = true;
    for (size_t i = 1; i < modules_.size() && increasing; ++i)
      increasing = modules_[i - 1].path < modules_[i].path;
    sorted_ = increasing;
    if (!increasing) index_.emplace(modules_);
  }
  return *sorted_;
}

size_t ModuleLookup::search(std::string_view path) const {
  const auto it = std::lower_bound(modules_.begin(), modules_.end(), path,
                                   [](const hierarchy::Module& m, std::string_view p) { return m.path < p; });
  if (it == modules_.end() || it->path != path) return kNone;
  return static_cast<size_t>(it - modules_.begin());
}

size_t ModuleLookup::find(std::string_view path) {
  if (!sorted()) {
    const hierarchy::Module* m = index_->find(path);
    return m ? index_->position(*m) : kNone;
  }
  const size_t n = modules_.size();
  const size_t from = last_ > kNear ? last_ - kNear : 0;
  const size_t to = std::min(n, last_ + kNear + 1);
  for (size_t i = from; i < to; ++i)
    if (modules_[i].path == path) return last_ = i;
  const size_t at = search(path);
  if (at != kNone) last_ = at;
  return at;
}

// Whether `hint` is a position whose module has `path`.
bool ModuleLookup::names(size_t hint, std::string_view path) const {
  return hint < modules_.size() && modules_[hint].path == path;
}

size_t ModuleLookup::find(std::string_view path, size_t hint) {
  return names(hint, path) ? hint : find(path);
}

size_t ModuleLookup::parent_of(size_t position) {
  return find(hierarchy::parent_view(modules_[position]));  // what ModuleIndex::parents() looks up
}

size_t ModuleLookup::parent(size_t position) {
  const hierarchy::Module& m = modules_[position];
  if (m.path.empty()) return kNone;  // the root ends every walk
  // Tagging's modules know their parents (parent_at): no search, and no
  // pass over every path to learn whether they are sorted.
  if (names(m.parent_at, hierarchy::parent_view(m))) return m.parent_at;
  if (!sorted()) return index_->parents()[position];
  if (parents_.empty()) parents_.assign(modules_.size(), kUnknown);
  size_t& p = parents_[position];
  if (p == kUnknown) p = parent_of(position);
  return p;
}

}  // namespace mx::model
