#include "hierarchy/document.hpp"

#include <algorithm>

#include "mx/common/module_path.hpp"

namespace mx::hierarchy {
namespace {
constexpr size_t kAhead = 8;  // how far ahead the loops below prefetch
}  // namespace

NodeRecord* Document::find_record_at(size_t index) {
  // A document attached to a model keeps its records in graph order.
  auto it = std::lower_bound(nodes.begin(), nodes.end(), index, [](const NodeRecord& r, size_t i) {
    return r.index.value_or(-1) < static_cast<int64_t>(i);
  });
  if (it != nodes.end() && it->index && *it->index == static_cast<int64_t>(index)) return &*it;
  return nullptr;
}

const NodeRecord* Document::find_record_at(size_t index) const {
  return const_cast<Document*>(this)->find_record_at(index);
}

const ModuleIndex* Document::module_index() const {
  const ModuleIndex* index = kept_index.get();
  return index && index->covers(modules) ? index : nullptr;
}

void Document::keep_module_index(std::unique_ptr<const ModuleIndex> index) {
  kept_index.reset(std::move(index));
}

ModuleIndex::ModuleIndex(const Document& doc) : ModuleIndex(doc.modules) {}

ModuleIndex::ModuleIndex(const std::vector<Module>& modules) : base_(modules.data()), count_(modules.size()) {
  by_path_.reserve(modules.size());
  for (size_t i = 0; i < modules.size(); ++i) {
    // A path's characters are read to hash it: fetched a few modules ahead
    // (each lives in its own allocation; waiting for each was most of this).
    if (i + kAhead < modules.size()) __builtin_prefetch(modules[i + kAhead].path.data());
    by_path_.insert(modules[i].path, i);  // the first one wins
  }
}

std::vector<const NodeRecord*> records_by_position(const Document& doc, size_t size) {
  std::vector<const NodeRecord*> out(size, nullptr);
  for (const auto& r : doc.nodes)
    if (r.index && *r.index >= 0 && static_cast<uint64_t>(*r.index) < size && !out[*r.index])
      out[static_cast<size_t>(*r.index)] = &r;
  return out;
}

ModuleIndex::ModuleIndex(const std::vector<Module>& modules, const std::unordered_set<std::string_view>& only)
    : base_(modules.data()), count_(modules.size()) {
  complete_ = false;
  by_path_.reserve(only.size());
  for (size_t i = 0; i < modules.size(); ++i)
    if (only.count(modules[i].path)) by_path_.insert(modules[i].path, i);  // the first one wins
}

const Module* ModuleIndex::find(std::string_view path) const {
  const size_t i = by_path_.find(path);
  return i == PathTable::kNone ? nullptr : base_ + i;
}

const std::vector<size_t>& ModuleIndex::parents() const {
  if (have_parents_) return parents_;
  parents_.assign(count_, kNone);
  // Every module in the table under its own path: a module whose path
  // equals the parent's is the one find() would answer, so a parent found
  // by comparing paths needs no hash lookup. In a listing in path order
  // (every tree tagging writes) a module's parent is the previous module or
  // one of its nearest ancestors; a few steps up that chain are tried
  // before the lookup, which is most of the cost otherwise.
  const bool all_distinct = by_path_.size() == count_;
  constexpr int kSteps = 8;
  for (size_t i = 0; i < count_; ++i) {
    const Module& m = base_[i];
    if (m.path.empty()) continue;  // the root ends every walk
    const std::string_view parent = parent_view(m);
    size_t found = kNone;
    if (all_distinct) {
      size_t c = i == 0 ? kNone : i - 1;
      for (int step = 0; c != kNone && step < kSteps; ++step, c = parents_[c])
        if (std::string_view(base_[c].path) == parent) {
          found = c;
          break;
        }
    }
    parents_[i] = found != kNone ? found : by_path_.find(parent);  // kNone when absent
  }
  have_parents_ = true;
  return parents_;
}

const std::string& record_tag(const Document& doc, const NodeRecord& record) {
  if (!record.tag_from_module) return record.tag;
  // The position the record's writer noted, checked as every hint is.
  if (record.module_at < doc.modules.size() && doc.modules[record.module_at].path == record.module)
    return doc.modules[record.module_at].tag;
  // No pass of the SDK moves modules under their records; a caller that
  // edits a document in place may have.
  if (const ModuleIndex* index = doc.module_index()) {
    if (const Module* m = index->find(record.module)) return m->tag;
  } else {
    for (const Module& m : doc.modules)
      if (m.path == record.module) return m.tag;
  }
  static const std::string none;
  return none;
}

Json record_to_json(const Document& doc, const NodeRecord& record, bool with_name) {
  Json j = Json::object();
  if (with_name) {
    j["name"] = record.name;
    if (record.index) j["index"] = *record.index;
  }
  j["module"] = record.module;
  j["tag"] = record_tag(doc, record);
  j["evidence"] = evidence_name(record.evidence);
  for (const auto& item : record.extra.items()) j[item.key()] = item.value();
  return j;
}

std::optional<std::string_view> stated_parent(const Module& m) {
  if (m.parent) return std::string_view(*m.parent);
  if (m.parent_from_path && !m.path.empty()) return mx::common::parent_view(m.path);
  return std::nullopt;
}

std::string parent_of(const Module& m) {
  return std::string(parent_view(m));
}

std::string_view parent_view(const Module& m) {
  return m.parent ? std::string_view(*m.parent) : mx::common::parent_view(m.path);
}

}  // namespace mx::hierarchy
