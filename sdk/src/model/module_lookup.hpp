// Module positions by path for a save, which asks for the modules of the
// nodes in file order: usually the module just found, its parent, or a
// sibling a few places away. Byte for byte the answers of a
// hierarchy::ModuleIndex (the first module with the path; a parent by its
// explicit "parent", else by its path's prefix), without hashing every
// module first: at 200,000 nodes building that index and its parent table
// was a quarter of the save (benchmarks/tagging_scale.cpp).
//
// When the modules are in strictly increasing path order (what tagging
// writes: ModuleTree sorts them), a path is unique, so a neighbour of the
// last answer that has it is the answer, and any other path is found by
// binary search. Any other order (or a repeated path) takes a ModuleIndex,
// built on the first lookup.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "hierarchy/document.hpp"

namespace mx::model {

class ModuleLookup {
 public:
  static constexpr size_t kNone = hierarchy::kNoPosition;

  // `modules` must outlive the lookup and not change meanwhile.
  explicit ModuleLookup(const std::vector<hierarchy::Module>& modules);
  // Position of the module with `path` (the first one), kNone if none.
  size_t find(std::string_view path);
  // The same, given where the writer of a document said the module is (a
  // record's module_at, a module's parent_at): `hint` when the module there
  // has `path` (checked here, the one place that does), else find(path).
  // A hint that names the second of a repeated path is taken as is.
  size_t find(std::string_view path, size_t hint);
  // hierarchy::ModuleIndex::parents()[position], computed when first asked.
  size_t parent(size_t position);

 private:
  bool sorted();
  size_t search(std::string_view path) const;
  bool names(size_t hint, std::string_view path) const;
  size_t parent_of(size_t position);

  const std::vector<hierarchy::Module>& modules_;
  std::optional<bool> sorted_;                   // checked on first use
  std::optional<hierarchy::ModuleIndex> index_;  // unsorted modules only
  size_t last_ = 0;                              // the last position found
  std::vector<size_t> parents_;                  // kUnknown until asked
};

}  // namespace mx::model
