// Rebuilds the module tree of a hierarchy document from the module paths the
// nodes ended up in: every prefix of a used path is a module. Classes come
// from a supplied hierarchy first, then from the strategies' "modules"
// answers; an unknown class is "" (and the tag then uses the path segment).
#pragma once
#include <cstdint>
#include <map>
#include <string_view>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/container/deque.hpp>
#include <boost/container/options.hpp>
#include <nlohmann/json.hpp>

#include "hierarchy/document.hpp"
#include "model/name_index.hpp"

namespace mx {

class ModuleTree {
 public:
  explicit ModuleTree(const std::map<std::string, std::string>& classes = {});
  // `supplied`: a supplied hierarchy's "modules" as parse_document read
  // them from `entries` (the same array, entry i = module i: paths unique,
  // parents and listed children present). Entries are kept as they are, in
  // their order; `entries` is read only for which keys each one has
  // ("parent", "tag": a missing key is filled in, a given one kept), so
  // the tree does not refer to it afterwards.
  ModuleTree(const nlohmann::json& entries, std::vector<hierarchy::Module>&& supplied,
             const std::map<std::string, std::string>& classes = {});
  // The same from the entries alone, each read as parse_document reads a
  // module, nothing else checked (tests).
  static ModuleTree from_entries(const nlohmann::json& entries,
                                 const std::map<std::string, std::string>& classes = {});
  ModuleTree(ModuleTree&&) = default;
  ModuleTree& operator=(ModuleTree&&) = default;

  // Strategies' guesses; a supplied class beats them.
  void add_classes(const std::map<std::string, std::string>& classes);

  // Adds `path` and all its ancestors; answers the path's row (take_modules
  // maps rows to output positions).
  size_t add_path(const std::string& path);

  // Class path, e.g. "/BertModel/BertEncoder/BertLayer.0" (docs/tagging.md).
  // Memoised: a tag depends only on the classes and supplied tags, never on
  // which modules were added, so every path is computed once (tagging asks
  // for the tag of every node's module: 200,000 times for 200,000 nodes).
  const std::string& tag_of(const std::string& path) const;

  // The "modules" array as hierarchy modules: supplied entries first, then
  // new modules sorted by path; parent/children/class/tag filled where
  // missing (children a parent does not list are appended in path order).
  // Without `tags`, tags the tree would derive are left "" (for checks that
  // do not read them). A supplied module whose parent path is no module
  // is MX_ERR_SCHEMA "hierarchy: modules[i].path: required field is
  // missing" (the parent's entry would only list children).
  std::vector<hierarchy::Module> to_modules(bool tags = true) const;
  // The same, moving the modules out: the tree is empty afterwards.
  // `positions`, when given, is set to each row's position in the output.
  std::vector<hierarchy::Module> take_modules(std::vector<size_t>* positions = nullptr);

  // True when to_modules(false) is certainly a consistent tree
  // (hierarchy/tree_check.hpp) — each module's parent is its path's parent
  // and every listed child's path is below its lister — checked without
  // building it. False says nothing: ask module_tree_problems.
  bool plainly_consistent() const;

  const std::string& class_of(const std::string& path) const;
  bool contains(const std::string& path) const { return row_of(path) != kNone; }
  // Starts loading the index slot add_path would probe first for `path`
  // (a hint: build_document asks some nodes ahead).
  void prefetch(std::string_view path) const { index_.prefetch(path); }
  bool has_supplied() const { return supplied_ != 0; }
  // The supplied modules, in their order (as given, parent filled in).
  size_t supplied_count() const { return supplied_; }
  const hierarchy::Module& supplied_module(size_t i) const { return given_[i]; }

 private:
  // A row is a path and what tagging learns about it. Only supplied rows
  // have a whole hierarchy::Module (given_[i] for row i < supplied_, path
  // and tag included); a new row's module is built once, straight into the
  // output, from its path (class, parent path) and tag: a Module (~300
  // bytes) per row moved into a second vector of them was a fifth of
  // take_modules in page faults and copies.
  struct Row {
    std::string path;               // new rows; "" for supplied ones (their module's)
    std::string tag;                // new rows: tag_of(path) once tag_done
    uint64_t segment_key = 0;       // the last segment's first 8 bytes (segment_key())
    size_t parent_row = kUnlinked;  // row of the path's parent (kNone: none)
    bool tag_given = false;         // a supplied "tag": authoritative
    bool parent_filled = false;     // a supplied entry without "parent"
    bool tag_done = false;          // the row's tag holds tag_of(path)
  };
  static constexpr size_t kNone = static_cast<size_t>(-1);
  static constexpr size_t kUnlinked = static_cast<size_t>(-2);
  bool is_supplied(size_t i) const { return i < given_.size(); }
  // The row of `path`, or kNone.
  size_t row_of(std::string_view path) const {
    const uint32_t id = index_.find(path);
    return id == model::NameIndex::kNone ? kNone : id;
  }
  const std::string& path_of(size_t i) const { return is_supplied(i) ? given_[i].path : rows_[i].path; }
  std::string& tag_slot(size_t i) const { return is_supplied(i) ? given_[i].tag : rows_[i].tag; }
  std::string compute_tag(const std::string& path) const;
  const std::string& row_tag(size_t i) const;
  const std::string& row_class(size_t i) const;
  const std::string& guessed_class(const std::string& path) const;
  size_t parent_row(size_t i) const;
  size_t add_path_row(std::string_view path);  // the row of `path`
  void note_path(Row& r, std::string_view path, std::string_view checked);
  // Output order (row numbers) and, per output position, the children to
  // append after the listed ones: rows[begin[i] .. begin[i+1]) for output
  // position i (one array, not a vector per module); `position` is each
  // row's output position.
  struct Appended {
    std::vector<size_t> begin, rows, position;
  };
  // Each row's children (the rows whose parent row it is) in path order:
  // rows[begin[r] .. begin[r+1]) for row r.
  struct Children {
    std::vector<size_t> begin, rows;
  };
  Children children_of_rows() const;
  std::vector<size_t> output_order(const Children& children) const;
  Appended appended_children(const std::vector<size_t>& order, const Children& children) const;
  // Move: take_modules (the rows are emptied), else copies (to_modules).
  template <bool Move>
  std::vector<hierarchy::Module> build(bool tags, std::vector<size_t>* positions = nullptr) const;

  // Rows in blocks that never move (a deque), so index_ can view their
  // paths. std::deque's blocks are 512 bytes, five rows: a malloc and a
  // free per few modules; Boost's deque takes the block size as an option.
  using RowStore =
      boost::container::deque<Row, void,
                              boost::container::deque_options_t<boost::container::block_size<1024u>>>;
  // Mutable: tags (and the classes of new modules) are filled in when
  // first needed.
  mutable RowStore rows_;
  // Supplied modules (rows 0 .. supplied_-1), sized once: index_ views
  // their paths.
  mutable std::vector<hierarchy::Module> given_;
  // Path → row. Every row is added to it as it is appended, so a path's id
  // is its row (model::NameIndex numbers names in the order they come):
  // one probe finds or adds a path, and a loop can prefetch a path's slot
  // ahead (tsl's robin map, here before, offers neither; its misses were
  // three quarters of add_path_row).
  model::NameIndex index_;
  size_t supplied_ = 0;
  bool unvalidated_ = false;                              // built from entries alone: nothing checked
  bool below_dot_ = false;                                // a path has a character that sorts before '.'
  std::unordered_map<std::string, std::string> classes_;  // strategies' classes
  // Tags of paths that are no module (asked for anyway); rows keep theirs.
  mutable std::unordered_map<std::string, std::string> loose_tags_;
};

}  // namespace mx
