// The cross-checks of a hierarchy document read by document_reader.cpp
// (parse.hpp): what no single field shows.
#include "hierarchy/parse.hpp"

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "hierarchy/schema_messages.hpp"
#include "mx/common/module_path.hpp"
#include "util/error.hpp"
#include "util/utf8.hpp"

namespace mx::hierarchy {
using mx::common::is_ancestor_or_self;
using mx::common::is_valid_module_path;
namespace {

// `path` is `parent` + "." + a name (compared in place: building the
// prefix string cost an allocation per module).
bool is_child_path(std::string_view path, std::string_view parent) {
  return path != parent && is_ancestor_or_self(parent, path);
}

// Every walk to the root ends (at the root, or at a parent that is no
// module): a module cannot be its own ancestor.
void check_parent_chains(const Document& doc, const std::vector<size_t>& parents, const std::string& where) {
  // 0 = unvisited, 1 = on the current chain, 2 = reaches the end.
  std::vector<char> state(doc.modules.size(), 0);
  std::vector<size_t> chain;
  for (size_t start = 0; start < doc.modules.size(); ++start) {
    chain.clear();
    size_t i = start;
    while (i != ModuleIndex::kNone && state[i] != 2) {
      if (state[i] == 1)
        schema_error(where, "modules[" + std::to_string(i) + "].parent",
                     "the parent chain of " + quoted(doc.modules[i].path) +
                         " is a cycle (a module cannot be its own ancestor)");
      state[i] = 1;
      chain.push_back(i);
      i = parents[i];
    }
    for (size_t c : chain) state[c] = 2;
  }
}

// Whether module i's path is a module path, for a module whose earlier
// modules' paths are (check_paths stops at the first that is not). A path
// that is its parent's + "." + a rest is one exactly when the parent's is
// and the rest is (dot-separated names, each a run of name characters), so
// only the rest is scanned when the parent came first: scanning every path
// byte by byte is the most expensive check otherwise.
bool has_module_path(const Document& doc, const std::vector<size_t>& parents, size_t i) {
  const std::string& path = doc.modules[i].path;
  const size_t p = parents[i];
  if (p != ModuleIndex::kNone && p < i) {
    const std::string& parent = doc.modules[p].path;
    if (!parent.empty() && is_child_path(path, parent))
      return is_valid_module_path(std::string_view(path).substr(parent.size() + 1));
  }
  return is_valid_module_path(path);
}

// Paths are module paths and unique, checked in document order (the first
// problem is reported).
void check_paths(const Document& doc, const ModuleIndex& paths, const std::vector<size_t>& parents,
                 const std::string& where) {
  const bool unique = paths.size() == doc.modules.size();
  for (size_t i = 0; i < doc.modules.size(); ++i) {
    // One rule for module paths wherever a tree comes from (sidecars used
    // to accept '..' and 'a/b c', which --hierarchy refused).
    if (!has_module_path(doc, parents, i))
      schema_error(where, "modules[" + std::to_string(i) + "].path",
                   quoted(doc.modules[i].path) +
                       " is not a module path (dot-separated names "
                       "without '/', spaces or control characters)");
    // The index keeps the first module of a path.
    if (!unique && paths.find(doc.modules[i].path) != &doc.modules[i])
      schema_error(where, "modules[" + std::to_string(i) + "].path",
                   quoted(doc.modules[i].path) + " appears twice");
  }
}

// Each module's children as the parent positions say, in document order:
// rows begin[i] .. begin[i + 1] of `at` for module i. In a tree listed in
// path order (every tree tagging writes) that is the order its "children"
// list them, so child c of module i is first compared with module
// at[begin[i] + c]: equal paths prove the child is a module without a
// hash lookup.
struct ChildrenByParent {
  std::vector<uint32_t> begin, at;

  explicit ChildrenByParent(const std::vector<size_t>& parents) : begin(parents.size() + 2, 0) {
    for (size_t p : parents)
      if (p != ModuleIndex::kNone) ++begin[p + 2];
    for (size_t i = 2; i < begin.size(); ++i) begin[i] += begin[i - 1];
    at.resize(begin.back());
    for (size_t i = 0; i < parents.size(); ++i)
      if (parents[i] != ModuleIndex::kNone) at[begin[parents[i] + 1]++] = static_cast<uint32_t>(i);
  }
  // A module whose path is `child` (c-th child of module i), if the guess
  // holds; nullptr says nothing.
  const Module* guess(const Document& doc, size_t i, size_t c, const std::string& child) const {
    if (c >= begin[i + 1] - begin[i]) return nullptr;
    const Module& m = doc.modules[at[begin[i] + c]];
    return m.path == child ? &m : nullptr;
  }
};

// True when every parent comes before its child: a walk to the root then
// only goes back in the list and cannot be a cycle.
bool parents_come_first(const std::vector<size_t>& parents) {
  for (size_t i = 0; i < parents.size(); ++i)
    if (parents[i] != ModuleIndex::kNone && parents[i] >= i) return false;
  return true;
}

}  // namespace

void validate_consistency(const Document& doc, const std::string& where) {
  validate_consistency(doc, ModuleIndex(doc), where);
}

void validate_consistency(const Document& doc, const ModuleIndex& paths, const std::string& where) {
  // Hashed views into `doc` (no copies of its strings), one index for every check
  // (at a million modules each hash table costs as much as parsing), and
  // each module's parent looked up once (the positions find no problem:
  // they are computed before the first check reports one).
  const std::vector<size_t>& parents = paths.parents();
  check_paths(doc, paths, parents, where);
  // A module whose path a child names proves the child exists only when
  // every module is in the index.
  std::optional<ChildrenByParent> listed;
  if (paths.complete()) listed.emplace(parents);
  for (size_t i = 0; i < doc.modules.size(); ++i) {
    const Module& m = doc.modules[i];
    // Field names are built for a message only (a string per module).
    auto at = [i] { return "modules[" + std::to_string(i) + "]"; };
    // (With an explicit parent, parents[i] is that parent's position.)
    const auto parent = stated_parent(m);
    if (parent && (m.path.empty() ? !paths.contains(*parent) : parents[i] == ModuleIndex::kNone))
      schema_error(where, at() + ".parent", quoted(*parent) + " is not a module path");
    // Paths are named_modules() paths: a parent is a prefix of its child's
    // path. Tags and dynamo namespaces cut the child's name out of its path
    // after the parent's (fuzz/corpus/hierarchy_json/parent_disagrees_with_path.json
    // reached a substr past the end).
    if (parent && !m.path.empty() && !parent->empty() && !is_child_path(m.path, *parent))
      schema_error(where, at() + ".parent",
                   quoted(*parent) + " is not a prefix of the module's path " + quoted(m.path));
    for (size_t c = 0; c < m.children.size(); ++c) {
      if (listed && listed->guess(doc, i, c, m.children[c])) continue;
      if (!paths.contains(m.children[c]))
        schema_error(where, at() + ".children[" + std::to_string(c) + "]",
                     quoted(m.children[c]) + " is not a module path");
    }
  }
  if (!parents_come_first(parents)) check_parent_chains(doc, parents, where);
  validate_records(doc, paths, where);
}

void validate_records(const Document& doc, const ModuleIndex& paths, const std::string& where) {
  // Records are keyed by index when they have one, else by name
  // (document.hpp, NodeRecord); which node a key names is checked against
  // the graph when the document is attached (model/record_keys.hpp).
  // Indexes that only grow cannot repeat (records in graph order: every
  // document tagging writes or a model keeps), and only records without
  // one are keyed by name: the hash sets are filled only when needed.
  bool increasing = true;
  size_t named = 0;
  int64_t last = -1;
  for (const NodeRecord& r : doc.nodes) {
    if (!r.index) {
      ++named;
    } else {
      increasing = increasing && *r.index > last;
      last = *r.index;
    }
  }
  std::unordered_set<std::string_view> names;
  std::unordered_set<int64_t> indices;
  names.reserve(named);
  if (!increasing) indices.reserve(doc.nodes.size() - named);
  // Neighbouring records often share their module, or one of the few
  // before it (a layer's ops alternate between its submodules): the last
  // modules found are compared before a lookup.
  constexpr size_t kRecent = 4;
  const std::string* recent[kRecent] = {};
  size_t next_recent = 0;
  auto found_recently = [&](const std::string& module) {
    for (const std::string* m : recent)
      if (m && *m == module) return true;
    return false;
  };
  for (size_t i = 0; i < doc.nodes.size(); ++i) {
    // A module's characters are read to compare or hash it: fetched a few
    // records ahead (each lives in its own allocation).
    if (i + 8 < doc.nodes.size()) __builtin_prefetch(doc.nodes[i + 8].module.data());
    const NodeRecord& r = doc.nodes[i];
    auto at = [i] { return "nodes[" + std::to_string(i) + "]"; };
    if (r.index) {
      if (!increasing && !indices.insert(*r.index).second)
        schema_error(where, at() + ".index", std::to_string(*r.index) + " has two records");
    } else if (r.name.empty()) {
      schema_error(where, at() + ".index",
                   "required for a record of an unnamed node (the node's position in the graph)");
    } else if (!names.insert(r.name).second) {
      schema_error(where, at() + ".name",
                   quoted(r.name) +
                       " has two records (records of nodes sharing a name need "
                       "\"index\", the node's position in the graph)");
    }
    if (paths.size() == 0 || found_recently(r.module)) continue;
    if (!paths.contains(r.module))
      schema_error(where, at() + ".module", quoted(r.module) + " is not in modules");
    recent[next_recent] = &r.module;
    next_recent = (next_recent + 1) % kRecent;
  }
}

}  // namespace mx::hierarchy
