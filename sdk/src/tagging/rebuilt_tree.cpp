#include "tagging/rebuilt_tree.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <string_view>
#include <type_traits>
#include <unordered_set>
#include <utility>

#include "hierarchy/parse.hpp"
#include "mx/common/module_path.hpp"
#include "util/error.hpp"
#include "util/json_text.hpp"

namespace mx {
using mx::common::last_view;
using mx::common::parent_path;
using mx::common::parent_view;
namespace {

using json = nlohmann::json;

bool is_index(std::string_view segment) {
  return !segment.empty() &&
         std::all_of(segment.begin(), segment.end(), [](unsigned char c) { return std::isdigit(c); });
}

// Containers that are only indexed, never called: they add no tag component.
bool is_pure_container(std::string_view cls) {
  return cls == "ModuleList" || cls == "ModuleDict";
}

}  // namespace

namespace {

// Which keys each supplied entry has.
bool has_key(const json& entry, const char* key) {
  return entry.is_object() && entry.find(key) != entry.end();
}

}  // namespace

ModuleTree::ModuleTree(const std::map<std::string, std::string>& classes)
    : classes_(classes.begin(), classes.end()) {
  add_path("");
}

ModuleTree::ModuleTree(const json& entries, std::vector<hierarchy::Module>&& supplied,
                       const std::map<std::string, std::string>& classes)
    : classes_(classes.begin(), classes.end()) {
  index_.reserve(supplied.size() + 1);
  // Never more than this: index_ views the paths where they are.
  given_.reserve(supplied.size());
  for (size_t i = 0; i < supplied.size(); ++i) {
    hierarchy::Module& m = supplied[i];
    const json* entry = entries.is_array() && i < entries.size() ? &entries[i] : nullptr;
    // A missing "parent" is the path's parent; a given one (even null) stays.
    const bool fill_parent = !(entry && has_key(*entry, "parent"));
    if (fill_parent) {
      m.parent.reset();
      if (!m.path.empty()) m.parent = std::string(parent_view(m.path));
    }
    // The first entry of a path wins (parse_document refuses a second one).
    if (const size_t at = row_of(m.path); at != kNone) {
      rows_[at].parent_filled = fill_parent;
      continue;
    }
    const bool tag_given = entry && has_key(*entry, "tag");
    given_.push_back(std::move(m));
    Row& r = rows_.emplace_back();
    index_.intern(given_.back().path);  // new (not found above): id = row
    r.tag_given = r.tag_done = tag_given;
    r.parent_filled = fill_parent;
    note_path(r, given_.back().path, given_.back().path);  // its parent may be no row
  }
  supplied_ = rows_.size();
  add_path("");
}

ModuleTree ModuleTree::from_entries(const json& entries, const std::map<std::string, std::string>& classes) {
  std::vector<hierarchy::Module> parsed;
  if (entries.is_array())
    for (size_t i = 0; i < entries.size(); ++i)
      parsed.push_back(
          hierarchy::parse_module_entry(entries[i], "hierarchy", "modules[" + std::to_string(i) + "]"));
  ModuleTree tree(entries, std::move(parsed), classes);
  tree.unvalidated_ = true;
  return tree;
}

namespace {

// The first 8 bytes of a path's last segment as a big-endian number, zeros
// past its end: keys that differ order their segments as
// std::string_view's comparison does (bytes as unsigned char, a prefix
// first); equal keys say nothing (longer segments, or zero bytes).
uint64_t segment_key(std::string_view segment) {
  uint64_t key = 0;
  const size_t n = std::min<size_t>(segment.size(), 8);
  for (size_t k = 0; k < n; ++k) key |= uint64_t{static_cast<unsigned char>(segment[k])} << (56 - 8 * k);
  return key;
}

}  // namespace

// Read while the path is at hand (a pass over all paths at the end cost a
// tenth of take_modules in cache misses): whether a character sorts before
// '.', and the key that orders the row among its siblings. `checked`: the
// characters to look at (a new row's last segment: its parent is a row,
// whose were looked at).
void ModuleTree::note_path(Row& r, std::string_view path, std::string_view checked) {
  bool below = false;  // a local, not the member: the loop vectorises
  for (const char c : checked) below |= static_cast<unsigned char>(c) < static_cast<unsigned char>('.');
  below_dot_ = below_dot_ || below;
  r.segment_key = segment_key(last_view(path));
}

size_t ModuleTree::parent_row(size_t i) const {
  Row& r = rows_[i];
  if (r.parent_row != kUnlinked) return r.parent_row;
  const std::string& path = path_of(i);
  if (path.empty()) return kNone;
  const size_t parent = row_of(parent_view(path));
  // Only a found parent is kept: add_path may add a missing one later.
  if (parent == kNone) return kNone;
  return r.parent_row = parent;
}

const std::string& ModuleTree::row_class(size_t i) const {
  return is_supplied(i) ? given_[i].class_name : guessed_class(rows_[i].path);
}

// What class_of answers for a path whose row is not supplied, without
// finding the row again (and nothing to find when no strategy guessed).
const std::string& ModuleTree::guessed_class(const std::string& path) const {
  static const std::string unknown;
  if (classes_.empty()) return unknown;
  auto it = classes_.find(path);
  return it == classes_.end() ? unknown : it->second;
}

void ModuleTree::add_classes(const std::map<std::string, std::string>& classes) {
  for (const auto& [path, cls] : classes) classes_[path] = cls;
}

size_t ModuleTree::add_path(const std::string& path) {
  return add_path_row(path);
}

// Each new row is linked to its parent row as the walk up finds or adds it:
// tags and the output's children then never look a parent up by its path.
size_t ModuleTree::add_path_row(std::string_view path) {
  std::string_view p = path;
  size_t first = kNone, child = kNone;
  for (;;) {
    // Not fresh: its ancestors are there already.
    const auto [id, fresh] = index_.intern(p);
    const size_t at = id;
    if (fresh) {
      // Built in place: a module moved into its row cost as much as the row.
      Row& r = rows_.emplace_back();
      r.path = std::string(p);
      index_.repoint(id, r.path);  // `p` is the caller's: read the row's copy
      note_path(r, p, last_view(p));
      if (p.empty()) r.parent_row = kNone;
    }
    if (child != kNone) rows_[child].parent_row = at;
    if (first == kNone) first = at;
    if (!fresh || p.empty()) return first;
    child = at;
    p = parent_view(p);
  }
}

const std::string& ModuleTree::class_of(const std::string& path) const {
  if (const size_t i = row_of(path); i != kNone && is_supplied(i)) return given_[i].class_name;
  return guessed_class(path);
}

namespace {

// The tag of a module from its class and its parent's tag and class
// (docs/tagging.md): what tag_of computes, for rows and for other paths.
std::string tag_from(const std::string& path, const std::string& cls, std::string_view parent,
                     std::string_view parent_tag, const std::string& parent_cls) {
  // An unknown root is "/" so that no tag is ever empty (the hierarchy
  // layer's convention); its children then start from "".
  if (path.empty()) return "/" + cls;
  const std::string_view segment = last_view(path);
  if (parent_tag == "/") parent_tag = {};
  // Each tag is built in one string of its final size (a tag per module:
  // the parent's copy and the temporaries of chained + were most of it).
  auto join = [&](std::initializer_list<std::string_view> parts) {
    size_t size = parent_tag.size();
    for (const auto& part : parts) size += part.size();
    std::string out;
    out.reserve(size);
    out.append(parent_tag);
    for (const auto& part : parts) out.append(part);
    return out;
  };
  // A container's tag is its parent's; right below an unknown root that is
  // "/" (the parent's "" above), as hierarchy::derive_tags gives it: no tag
  // is ever empty.
  if (is_pure_container(cls)) return parent_tag.empty() ? std::string("/") : std::string(parent_tag);
  if (!cls.empty()) return is_index(segment) ? join({"/", cls, ".", segment}) : join({"/", cls});
  // Unknown class: mirror the scoped-name style, "layer.0" for list items.
  if (is_index(segment) && !parent.empty()) {
    if (parent_cls.empty()) return join({".", segment});
    if (is_pure_container(parent_cls)) return join({"/", last_view(parent), ".", segment});
  }
  return join({"/", segment});
}

}  // namespace

const std::string& ModuleTree::tag_of(const std::string& path) const {
  if (const size_t i = row_of(path); i != kNone) return row_tag(i);
  auto it = loose_tags_.find(path);
  if (it != loose_tags_.end()) return it->second;
  std::string tag = compute_tag(path);
  return loose_tags_.emplace(path, std::move(tag)).first->second;
}

// A row's tag, memoised in the row (supplied tags are authoritative: set
// from the start). The parent is the parent row, found once.
const std::string& ModuleTree::row_tag(size_t i) const {
  Row& r = rows_[i];
  std::string& slot = tag_slot(i);
  if (r.tag_done) return slot;
  const std::string& path = path_of(i);
  std::string tag;
  const size_t p = path.empty() ? kNone : parent_row(i);
  if (p == kNone) {
    tag = compute_tag(path);  // the root, or a parent that is no module
  } else {
    tag = tag_from(path, row_class(i), path_of(p), row_tag(p), row_class(p));
  }
  slot = std::move(tag);
  r.tag_done = true;
  return slot;
}

std::string ModuleTree::compute_tag(const std::string& path) const {
  if (path.empty()) return tag_from(path, class_of(path), "", "", "");
  const std::string parent = parent_path(path);
  return tag_from(path, class_of(path), parent, tag_of(parent), class_of(parent));
}

namespace {

// Rows by path, as (path, row) pairs: sorting the views in one array reads
// each path where it lies, instead of finding its row for every comparison.
using PathRows = std::vector<std::pair<std::string_view, size_t>>;

void sort_by_path(PathRows& rows) {
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

// The same order (std::string_view's: bytes as unsigned char, a prefix
// first) for short strings, compared in line: sibling segments ("0" ..
// "49999") are a few bytes, where the library's memcmp call cost more
// than the comparison.
bool segment_less(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  return a.size() < b.size();
}

}  // namespace

// Rows grouped by parent row; within a group, siblings share their
// parent's path, so comparing their last segments compares their paths.
// Each group is sorted on the keys noted as the rows were added (a number
// per row in one array): comparing the segments where they lie cost a
// cache miss per path read, a quarter of take_modules; the segments are
// read only where keys tie (segments longer than 8 bytes sharing those).
ModuleTree::Children ModuleTree::children_of_rows() const {
  const size_t n = rows_.size();
  std::vector<size_t> parent(n, kNone);
  Children out;
  out.begin.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    parent[i] = parent_row(i);
    if (parent[i] != kNone) ++out.begin[parent[i] + 1];
  }
  for (size_t i = 0; i < n; ++i) out.begin[i + 1] += out.begin[i];
  struct Kid {
    uint64_t key;
    size_t row;
  };
  std::vector<Kid> kids(out.begin[n]);
  std::vector<size_t> fill(out.begin.begin(), out.begin.end() - 1);
  for (size_t i = 0; i < n; ++i)
    if (parent[i] != kNone) kids[fill[parent[i]]++] = {rows_[i].segment_key, i};
  auto less = [this](const Kid& a, const Kid& b) {
    if (a.key != b.key) return a.key < b.key;
    return segment_less(last_view(path_of(a.row)), last_view(path_of(b.row)));
  };
  for (size_t r = 0; r < n; ++r)
    if (out.begin[r + 1] - out.begin[r] > 1)
      std::sort(kids.begin() + static_cast<std::ptrdiff_t>(out.begin[r]),
                kids.begin() + static_cast<std::ptrdiff_t>(out.begin[r + 1]), less);
  out.rows.resize(kids.size());
  for (size_t k = 0; k < kids.size(); ++k) out.rows[k] = kids[k].row;
  return out;
}

std::vector<size_t> ModuleTree::output_order(const Children& children) const {
  // A supplied path whose parent path is no module: that parent would be an
  // entry listing only children, refused as the parser refuses an entry
  // without "path" (at the position it would have among the new modules).
  // (The message names the module and the missing parent as well: the
  // position alone left users guessing.)
  std::vector<std::pair<std::string_view, size_t>> missing;  // parent path, child row
  for (size_t i = 0; i < supplied_; ++i) {
    const std::string& path = path_of(i);
    if (!path.empty() && parent_row(i) == kNone) missing.emplace_back(parent_view(path), i);
  }
  if (!missing.empty()) {
    const auto first = *std::min_element(missing.begin(), missing.end());
    size_t at = supplied_;
    for (size_t i = supplied_; i < rows_.size(); ++i) at += rows_[i].path < first.first;
    fail(MX_ERR_SCHEMA, "hierarchy: modules[" + std::to_string(at) +
                            "].path: required field is missing (module '" + path_of(first.second) +
                            "' has no parent module '" + std::string(first.first) +
                            "': every module's parent path must be listed)");
  }
  // Supplied rows are the first ones, in their order; the others sorted.
  std::vector<size_t> order;
  order.reserve(rows_.size());
  for (size_t i = 0; i < supplied_; ++i) order.push_back(i);
  if (!below_dot_) {
    // Preorder from the root, siblings in path order: every row is reached
    // (each added row is linked to its parent, no supplied one lacks its).
    // It visits paths in sorted order: it puts a module's subtree ("a.b.c")
    // before its next sibling ("a.b-x"), as sorting does only when '.'
    // sorts before every character that follows a shared prefix: no path
    // character below '.' (e.g. '-', ',', '!').
    std::vector<size_t> stack;
    if (const size_t root = row_of(""); root != kNone) stack.push_back(root);
    while (!stack.empty()) {
      const size_t r = stack.back();
      stack.pop_back();
      if (r >= supplied_) order.push_back(r);
      for (size_t k = children.begin[r + 1]; k > children.begin[r]; --k)
        stack.push_back(children.rows[k - 1]);
    }
    if (order.size() != rows_.size())
      fail(MX_ERR_INTERNAL, "module tree: " + std::to_string(rows_.size() - order.size()) +
                                " modules not reached from the root");
    return order;
  }
  PathRows added;
  added.reserve(rows_.size() - supplied_);
  for (size_t i = supplied_; i < rows_.size(); ++i) added.emplace_back(rows_[i].path, i);
  sort_by_path(added);
  for (const auto& [path, i] : added) order.push_back(i);
  return order;
}

// Each module is a child of its path's parent: appended there, in path
// order, unless that parent lists it already.
ModuleTree::Appended ModuleTree::appended_children(const std::vector<size_t>& order,
                                                   const Children& children) const {
  // Only supplied modules list children (add_path's have none yet).
  std::vector<char> listed(rows_.size(), 0);
  for (size_t k = 0; k < supplied_; ++k) {
    const hierarchy::Module& m = given_[k];
    for (const auto& c : m.children)
      if (parent_view(c) == m.path && !c.empty())
        if (const size_t i = row_of(c); i != kNone) listed[i] = 1;
  }
  Appended out;
  out.position.resize(rows_.size());
  for (size_t i = 0; i < order.size(); ++i) out.position[order[i]] = i;
  out.begin.assign(order.size() + 1, 0);
  out.rows.reserve(children.rows.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t r = order[i];
    for (size_t k = children.begin[r]; k < children.begin[r + 1]; ++k)
      if (!listed[children.rows[k]]) out.rows.push_back(children.rows[k]);
    out.begin[i + 1] = out.rows.size();
  }
  return out;
}

// Each module is built once, in its place in the output: a supplied one
// copied or moved whole, a new one from its row (path and tag moved, class
// and parent path from the path). A child's path is copied from its row,
// or from the output where the row's was already moved there.
template <bool Move>
std::vector<hierarchy::Module> ModuleTree::build(bool tags, std::vector<size_t>* positions) const {
  const Children children = children_of_rows();
  const std::vector<size_t> order = output_order(children);
  const Appended appended = appended_children(order, children);
  // Before any tag moves: a row's tag reads its parent's.
  if (tags)
    for (size_t i = 0; i < rows_.size(); ++i) row_tag(i);
  auto take = [](auto& from) -> decltype(auto) {
    if constexpr (Move) return std::move(from);
    else return static_cast<const std::remove_reference_t<decltype(from)>&>(from);
  };
  std::vector<hierarchy::Module> out;
  out.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t row = order[i];
    Row& r = rows_[row];
    if (is_supplied(row)) {
      out.push_back(take(given_[row]));
      // Without tags, only supplied ones (derived ones may be memoised).
      if (!tags && !r.tag_given) out.back().tag.clear();
    } else {
      hierarchy::Module& m = out.emplace_back();
      m.class_name = guessed_class(r.path);
      m.parent_from_path = !r.path.empty();
      // Where the parent ends up (children_of_rows linked every row that
      // has one): the save's walks to the root read it instead of a search.
      if (r.parent_row != kUnlinked && r.parent_row != kNone) m.parent_at = appended.position[r.parent_row];
      if (tags) m.tag = take(r.tag);
      m.path = take(r.path);
    }
    const size_t first = appended.begin[i], end = appended.begin[i + 1];
    if (first == end) continue;
    auto& kids = out.back().children;
    kids.reserve(kids.size() + (end - first));
    for (size_t k = first; k < end; ++k) {
      const size_t child = appended.rows[k], at = appended.position[child];
      kids.push_back(at < i ? out[at].path : path_of(child));
    }
  }
  if (positions) *positions = appended.position;
  return out;
}

std::vector<hierarchy::Module> ModuleTree::to_modules(bool tags) const {
  return build<false>(tags);
}

std::vector<hierarchy::Module> ModuleTree::take_modules(std::vector<size_t>* positions) {
  std::vector<hierarchy::Module> out = build<true>(true, positions);
  rows_.clear();
  given_.clear();
  index_ = model::NameIndex();
  loose_tags_.clear();
  supplied_ = 0;
  below_dot_ = false;
  return out;
}

// Only supplied modules can be inconsistent: a new one's parent is its
// path's parent, added with it, and it lists no children.
bool ModuleTree::plainly_consistent() const {
  for (const hierarchy::Module& m : given_) {
    if (m.path.empty()) {
      if (m.parent) return false;  // a second root, or none
    } else {
      if (!m.parent || *m.parent != parent_view(m.path)) return false;
      if (unvalidated_ && !contains(*m.parent)) return false;
    }
    for (const auto& c : m.children) {
      if (c.empty() || parent_view(c) != m.path) return false;
      if (unvalidated_ && !contains(c)) return false;
    }
  }
  // Filled-in parents ("parent" missing) were not checked by the parser.
  for (size_t i = 0; i < supplied_; ++i)
    if (rows_[i].parent_filled && given_[i].parent && !contains(*given_[i].parent)) return false;
  return true;
}

}  // namespace mx
