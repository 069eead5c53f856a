// In-memory form of the hierarchy document, schema modelexport.hierarchy/1
// (docs/hierarchy-schema.md): the module tree plus one record per ONNX node.
// Unknown keys are carried in `extra` so documents written by a newer minor
// version survive a load/save through this one.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "hierarchy/evidence.hpp"
#include "hierarchy/path_table.hpp"
#include "util/value_ptr.hpp"

namespace mx::hierarchy {

using Json = nlohmann::ordered_json;

inline constexpr const char* kSchema = "modelexport.hierarchy/1";

// "No position": a position hint the writer did not know (Module::parent_at,
// NodeRecord::module_at), a module index's "not found".
inline constexpr size_t kNoPosition = static_cast<size_t>(-1);

// One step of a module's forward outline, in program order: an op the
// forward runs itself ("aten::add") or a call into a module (full path; a
// shared module may be called under a path named_modules() does not list).
struct ForwardStep {
  enum class Kind { op, call };
  Kind kind = Kind::op;
  std::string name;    // op kind, or the called module's path
  std::string method;  // a call of a method other than forward; "" otherwise
};

// The schema fields of a module that frontends may fill and tagging never
// does. Kept out of line (see Module::details) because nearly every module
// has none of them: inline they would be almost half of every Module, all
// of it fresh memory a tagging process faults in.
struct ModuleDetails {
  std::string qualified_class;  // "transformers....BertLayer" or ""
  std::optional<int64_t> parameters;
  std::optional<int64_t> own_parameters;
  std::optional<int64_t> execution_order;
  std::optional<std::vector<ForwardStep>> forward;  // nullopt: not known
  Json extra;  // keys this version does not know; null when there are none
  std::optional<bool> executed;
};

struct Module {
  std::string path;                   // named_modules() spelling; "" = root
  std::string class_name;             // "BertLayer"
  std::optional<std::string> parent;  // nullopt for the root; read through stated_parent()
  std::vector<std::string> children;  // full paths
  std::string tag;                    // "" = derive (see tags.hpp)
  // Where the parent (parent_view) is in the document's modules, when the
  // writer knew it (tagging does): a hint for walks towards the root (the
  // save's namespaces), used only after checking that the module there
  // has that path. Not part of the schema. (A document that lists a path
  // twice, which no check accepts, may have a hint naming the second.)
  size_t parent_at = kNoPosition;
  // The module's parent is its path's prefix and `parent` is left unset:
  // what tagging writes for the modules it adds (a copy of the parent's
  // path per module otherwise). Whoever states a parent
  // clears it. Not part of the schema.
  bool parent_from_path = false;

  // The ModuleDetails fields, read as empty ("", nullopt, null) when the
  // module has none.
  const std::string& qualified_class() const { return read().qualified_class; }
  const std::optional<int64_t>& parameters() const { return read().parameters; }
  const std::optional<int64_t>& own_parameters() const { return read().own_parameters; }
  const std::optional<bool>& executed() const { return read().executed; }
  const std::optional<int64_t>& execution_order() const { return read().execution_order; }
  const std::optional<std::vector<ForwardStep>>& forward() const { return read().forward; }
  const Json& extra() const { return read().extra; }
  // The fields to write, made (empty) the first time: writers call it only
  // for a value they have, so modules without any stay without.
  ModuleDetails& details() { return details_.make(); }
  bool has_details() const { return details_.get() != nullptr; }

 private:
  const ModuleDetails& read() const {
    static const ModuleDetails none;
    return details_.get() ? *details_.get() : none;
  }

  ValuePtr<ModuleDetails> details_;  // null: every field empty
};

// A node's record. It is keyed by the node's name when that name is
// non-empty and no other node of the graph shares it; otherwise (unnamed
// nodes, duplicate names: common in converted files) by `index`, the
// node's position among the graph's top-level nodes. Once a document is
// attached to a model (model::set_hierarchy), every record's index is its
// node's current position.
struct NodeRecord {
  std::string name;    // ONNX node name ("" for an unnamed node)
  std::string module;  // module path
  std::string tag;     // "" = derive from the module tree; read through record_tag()
  Evidence evidence = Evidence::root;
  // The record's tag is its module's (modules[module_at].tag) and `tag` is
  // left empty: what tagging writes, so that records do not each carry a
  // copy of their module's tag (fresh memory per record). Whoever gives such a record a tag of its own clears it. Not
  // part of the schema.
  bool tag_from_module = false;
  Json extra;                    // null when there are no unknown keys
  std::optional<int64_t> index;  // position of the node in graph.node
  // Where `module` is in the document's modules, when the writer of the
  // record knew it (tagging does): a hint for passes that would look the
  // module up (the save's namespaces), used only after checking that
  // modules[module_at].path is `module`. Not part of the schema.
  size_t module_at = kNoPosition;
};

struct Document;

// Modules by path in a hash map: the one index every pass uses (a linear
// scan per lookup made inspecting 100,000 modules take 88 s). Valid while
// the document's modules are not changed (tags aside).
class ModuleIndex {
 public:
  static constexpr size_t kNone = kNoPosition;

  explicit ModuleIndex(const Document& doc);
  explicit ModuleIndex(const std::vector<Module>& modules);
  // Only the modules whose path is in `only` (a walk that needs a few
  // modules of a million: the index of all of them cost more than it).
  ModuleIndex(const std::vector<Module>& modules, const std::unordered_set<std::string_view>& only);
  const Module* find(std::string_view path) const;
  bool contains(std::string_view path) const { return find(path) != nullptr; }
  // Distinct paths (fewer than modules when a path repeats: the first wins).
  size_t size() const { return by_path_.size(); }
  // Every module is in the table (not an index of `only` some): a module
  // whose path is P then proves contains(P) without a lookup.
  bool complete() const { return complete_; }
  size_t position(const Module& m) const { return static_cast<size_t>(&m - base_); }
  // Position of each module's parent (parent_of), kNone for the root and
  // where the parent is no module: computed once, for every pass that walks
  // towards the root (the consistency checks, tags), instead of a lookup
  // and a string per step of each walk.
  const std::vector<size_t>& parents() const;
  // True when this index was built over `modules` (the same storage and
  // count): what Document::module_index checks before handing it out.
  bool covers(const std::vector<Module>& modules) const {
    return base_ == modules.data() && count_ == modules.size();
  }

 private:
  // The modules' storage (a moved vector keeps it).
  const Module* base_;
  size_t count_;
  PathTable by_path_;  // path -> position
  mutable std::vector<size_t> parents_;
  mutable bool have_parents_ = false;
  bool complete_ = true;
};

// The index model::set_hierarchy built over a document's modules, kept with
// the document for the passes after it (the save's node tags, dynamo
// namespaces: each built its own index of every module again). A copy of
// the document starts without one (an index views the modules it was built
// over, not the copy's); a move takes it along (a moved vector keeps its
// storage, and the strings in it stay where they are).
class KeptModuleIndex {
 public:
  KeptModuleIndex() = default;
  KeptModuleIndex(const KeptModuleIndex&) {}
  KeptModuleIndex& operator=(const KeptModuleIndex&) {
    index_.reset();
    return *this;
  }
  KeptModuleIndex(KeptModuleIndex&&) noexcept = default;
  KeptModuleIndex& operator=(KeptModuleIndex&&) noexcept = default;

  const ModuleIndex* get() const { return index_.get(); }
  void reset(std::unique_ptr<const ModuleIndex> index = nullptr) { index_ = std::move(index); }

 private:
  std::unique_ptr<const ModuleIndex> index_;
};

struct Document {
  Json producer;  // null when absent
  Json model;     // null when absent
  std::vector<Module> modules;
  std::vector<NodeRecord> nodes;
  Json extra;  // null when there are no unknown keys

  bool empty() const { return modules.empty() && nodes.empty(); }
  // The record at node position `index`, for a document attached to a
  // model (records carry their position and are in graph order).
  NodeRecord* find_record_at(size_t index);
  const NodeRecord* find_record_at(size_t index) const;

  // The index of `modules` that model::set_hierarchy built and kept (its
  // parents() computed, so it is only read from then on: safe for
  // concurrent readers of a const model), or nullptr when there is none or
  // `modules` is no longer the vector it indexed (build one). Like every
  // ModuleIndex it is valid while the modules are not changed (tags aside):
  // whoever edits the modules of a document in place calls
  // keep_module_index(nullptr).
  const ModuleIndex* module_index() const;
  // Keeps `index`, which must have been built over this document's modules.
  void keep_module_index(std::unique_ptr<const ModuleIndex> index);

  KeptModuleIndex kept_index;  // through module_index() / keep_module_index()
};

// The "parent" a module states: its own, its path's prefix
// (parent_from_path), or none (the root; a file's module without one).
// Every reader of the field goes through this.
std::optional<std::string_view> stated_parent(const Module& m);
// The parent a walk to the root follows: the explicit "parent", else the
// path's prefix (tags, dynamo namespaces, the cycle check).
std::string parent_of(const Module& m);
// The same as a view into `m` (loops over every module: no string each).
std::string_view parent_view(const Module& m);

// Record of each top-level node by position: `size` slots, nullptr where
// the node has no record. Records without a valid index are left out.
std::vector<const NodeRecord*> records_by_position(const Document& doc, size_t size);

// The tag a record of `doc` carries: its own, or (tag_from_module) its
// module's. Every reader of a record's tag goes through this.
const std::string& record_tag(const Document& doc, const NodeRecord& record);

// Records are plain {"module","tag","evidence"} triples when they travel
// alone (mx_model_set_node_record, doc_string storage); `doc` holds the
// record (its tag may be its module's).
Json record_to_json(const Document& doc, const NodeRecord& record, bool with_name);

}  // namespace mx::hierarchy
