#include "hierarchy/parse.hpp"
#include "hierarchy/document_reader.hpp"
#include "util/json_text.hpp"

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "mx/common/module_path.hpp"
#include "util/error.hpp"
#include "util/utf8.hpp"

namespace modelexport::hierarchy {
using mx::common::is_ancestor_or_self;
using mx::common::is_valid_module_path;
namespace {

[[noreturn]] void schema_error(const std::string& where, const std::string& field,
                               const std::string& problem) {
  fail(MX_ERR_SCHEMA, where + ": " + field + ": " + problem);
}

std::string quoted(std::string_view s) { return "'" + printable(s) + "'"; }
// (Beside std::quoted, which argument-dependent lookup finds for a string.)
std::string quoted(const std::string& s) { return quoted(std::string_view(s)); }

// The JSON path of member `key` of the object at `prefix` ("modules[3]" +
// "class" -> "modules[3].class"; a top-level member is its key). Built only
// when an error is reported: composing it for every member read was a
// string allocation per field of a 1,000,000-module document.
std::string field_name(const std::string& prefix, const char* key) {
  return prefix.empty() ? std::string(key) : prefix + "." + key;
}

// The field readers below take either JSON flavour (J): documents are read
// as ordered_json, a supplied hierarchy's entries arrive as nlohmann::json,
// and converting a million of them to read them cost more than reading.

// Reads an object member, checking its JSON type; nullptr if absent.
template <typename J>
const J* member(const J& obj, const char* key, const std::string& where,
                const std::string& prefix, typename J::value_t type, bool required) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) schema_error(where, field_name(prefix, key), "required field is missing");
    return nullptr;
  }
  bool ok = it->type() == type ||
            (type == J::value_t::number_integer && it->is_number_unsigned());
  if (!ok && type == J::value_t::number_integer && it->is_number_float())  // not "number, got number"
    schema_error(where, field_name(prefix, key), "must be an integer, got " + dump_text(*it));
  if (!ok)
    schema_error(where, field_name(prefix, key),
                 std::string("must be ") + J(type).type_name() + ", got " + it->type_name());
  return &*it;
}

template <typename J>
const J* string_member(const J& o, const char* key, const std::string& where,
                       const std::string& prefix, bool required) {
  return member(o, key, where, prefix, J::value_t::string, required);
}

template <typename J>
std::optional<int64_t> int_member(const J& o, const char* key, const std::string& where,
                                  const std::string& prefix) {
  auto it = o.find(key);
  if (it != o.end() && it->is_null()) return std::nullopt;
  const J* v = member(o, key, where, prefix, J::value_t::number_integer, false);
  if (!v) return std::nullopt;
  // get<int64_t>() would wrap 18446744073709551615 to -1.
  if (v->is_number_unsigned() && v->template get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    schema_error(where, field_name(prefix, key), "must be an integer below 2^63, got " + dump_text(*v));
  return v->template get<int64_t>();
}

// A count (parameters): an integer >= 0.
template <typename J>
std::optional<int64_t> count_member(const J& o, const char* key, const std::string& where,
                                    const std::string& prefix) {
  const std::optional<int64_t> v = int_member(o, key, where, prefix);
  if (v && *v < 0) schema_error(where, field_name(prefix, key), "must be a count (>= 0), got " + std::to_string(*v));
  return v;
}

// Keys this version knows are consumed; the rest travel in `extra`, which
// stays null (no allocation) when there are none — the common case, once
// per module of a document that may hold a million.
template <typename J>
Json leftovers(const J& obj, std::initializer_list<const char*> known) {
  Json extra;
  for (const auto& item : obj.items()) {
    bool is_known = false;
    for (const char* k : known) is_known = is_known || item.key() == k;
    if (!is_known) extra[item.key()] = item.value();
  }
  return extra;
}

template <typename J>
void check_schema_version(const J& json, const std::string& where) {
  const J* schema = string_member(json, "schema", where, "", true);
  const std::string s = schema->template get<std::string>();
  if (!is_supported_schema(s))
    schema_error(where, "schema", quoted(s) + " is not supported (expected " + kSchema + ")");
}

// "forward": [{"op": "aten::add"} | {"call": "path"[, "method": "name"]}, ...]
template <typename J>
std::vector<ForwardStep> parse_forward(const J& steps, const std::string& where,
                                       const std::string& at) {
  std::vector<ForwardStep> out;
  out.reserve(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string step_at = at + "[" + std::to_string(i) + "]";
    const J& j = steps[i];
    if (!j.is_object()) schema_error(where, step_at, "must be an object");
    const J* op = string_member(j, "op", where, step_at, false);
    const J* call = string_member(j, "call", where, step_at, false);
    if ((op != nullptr) == (call != nullptr))
      schema_error(where, step_at, "must have exactly one of \"op\" and \"call\"");
    ForwardStep s;
    s.kind = op ? ForwardStep::Kind::op : ForwardStep::Kind::call;
    s.name = (op ? op : call)->template get<std::string>();
    if (auto* method = string_member(j, "method", where, step_at, false)) {
      if (op) schema_error(where, step_at + ".method", "only a \"call\" step has a method");
      s.method = method->template get<std::string>();
    }
    out.push_back(std::move(s));
  }
  return out;
}

template <typename J>
Module parse_module(const J& j, const std::string& where, const std::string& at) {
  if (!j.is_object()) schema_error(where, at, "must be an object");
  Module m;
  m.path = string_member(j, "path", where, at, true)->template get<std::string>();
  m.class_name = string_member(j, "class", where, at, true)->template get<std::string>();
  if (auto* q = string_member(j, "qualified_class", where, at, false))
    m.details().qualified_class = q->template get<std::string>();
  if (j.contains("parent") && !j["parent"].is_null())
    m.parent = string_member(j, "parent", where, at, false)->template get<std::string>();
  if (auto* c = member(j, "children", where, at, J::value_t::array, false)) {
    m.children.reserve(c->size());
    for (size_t i = 0; i < c->size(); ++i) {
      if (!(*c)[i].is_string())
        schema_error(where, at + ".children[" + std::to_string(i) + "]", "must be a string");
      m.children.push_back((*c)[i].template get<std::string>());
    }
  }
  if (auto* t = string_member(j, "tag", where, at, false)) m.tag = t->template get<std::string>();
  // Details only for the fields present: most modules have none of them.
  if (auto p = count_member(j, "parameters", where, at)) m.details().parameters = p;
  if (auto p = count_member(j, "own_parameters", where, at)) m.details().own_parameters = p;
  if (auto* e = member(j, "executed", where, at, J::value_t::boolean, false))
    m.details().executed = e->template get<bool>();
  if (auto o = int_member(j, "execution_order", where, at)) m.details().execution_order = o;
  if (j.contains("forward") && !j["forward"].is_null()) {
    const J* f = member(j, "forward", where, at, J::value_t::array, false);
    m.details().forward = parse_forward(*f, where, at + ".forward");
  }
  Json extra = leftovers(j, {"path", "class", "qualified_class", "parent", "children", "tag",
                             "parameters", "own_parameters", "executed", "execution_order",
                             "forward"});
  if (!extra.is_null()) m.details().extra = std::move(extra);
  return m;
}

template <typename J>
NodeRecord parse_record_at(const J& j, const std::string& where, const std::string& at,
                           bool name_required) {
  if (!j.is_object()) schema_error(where, at.empty() ? "record" : at, "must be an object");
  NodeRecord r;
  if (auto* n = string_member(j, "name", where, at, name_required)) r.name = n->template get<std::string>();
  if (j.contains("index") && !j["index"].is_null()) {
    r.index = int_member(j, "index", where, at);
    // A graph holds at most 2^31-1 nodes (protobuf's repeated fields): a
    // larger index is no position of any graph, not a stale one.
    if (*r.index < 0 || *r.index > INT32_MAX)
      schema_error(where, at + ".index",
                   "must be a node position (0 to 2^31-1), got " + std::to_string(*r.index));
  }
  r.module = string_member(j, "module", where, at, true)->template get<std::string>();
  if (auto* t = string_member(j, "tag", where, at, false)) r.tag = t->template get<std::string>();
  const std::string ev = string_member(j, "evidence", where, at, true)->template get<std::string>();
  auto parsed = evidence_from_name(ev);
  if (!parsed)
    schema_error(where, at + ".evidence", quoted(ev) + " is not one of " + evidence_choices());
  r.evidence = *parsed;
  r.extra = leftovers(j, {"name", "index", "module", "tag", "evidence"});
  return r;
}

// `path` is `parent` + "." + a name (compared in place: building the
// prefix string cost an allocation per module).
bool is_child_path(std::string_view path, std::string_view parent) {
  return path != parent && is_ancestor_or_self(parent, path);
}

// Every walk to the root ends (at the root, or at a parent that is no
// module): a module cannot be its own ancestor.
void check_parent_chains(const Document& doc, const std::vector<size_t>& parents,
                         const std::string& where) {
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
// only the rest is scanned when the parent came first: at 150,000 modules
// scanning every path byte by byte was the most expensive check.
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
                   quoted(doc.modules[i].path) + " is not a module path (dot-separated names "
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
// hash lookup (the lookups were a fifth of the checks at 150,000 modules).
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

template <typename J>
Document parse_document_as(const J& json, const std::string& where) {
  if (!json.is_object()) fail(MX_ERR_SCHEMA, where + ": the document must be a JSON object");
  check_schema_version(json, where);
  Document doc;
  if (json.contains("producer")) doc.producer = json["producer"];
  if (json.contains("model")) doc.model = json["model"];
  member(json, "modules", where, "", J::value_t::array, true);
  const J& modules = json["modules"];
  doc.modules.reserve(modules.size());
  for (size_t i = 0; i < modules.size(); ++i)
    doc.modules.push_back(parse_module(modules[i], where, "modules[" + std::to_string(i) + "]"));
  const J* nodes = member(json, "nodes", where, "", J::value_t::array, true);
  doc.nodes.reserve(nodes->size());
  for (size_t i = 0; i < nodes->size(); ++i)
    doc.nodes.push_back(
        parse_record_at((*nodes)[i], where, "nodes[" + std::to_string(i) + "]", true));
  // Statistics are derived data, recomputed on every write: not kept.
  doc.extra = leftovers(json, {"schema", "producer", "model", "modules", "nodes", "statistics"});
  validate_consistency(doc, where);
  return doc;
}

}  // namespace

bool is_supported_schema(const std::string& s) {
  const std::string prefix = "modelexport.hierarchy/";
  // "modelexport.hierarchy/1" or a later minor "…/1.3": same major, accepted.
  const std::string version = s.rfind(prefix, 0) == 0 ? s.substr(prefix.size()) : "";
  return version.substr(0, version.find('.')) == "1";
}

std::vector<ForwardStep> parse_forward_steps(const Json& steps, const std::string& where,
                                             const std::string& at) {
  return parse_forward(steps, where, at);
}

std::vector<Module> parse_modules(const Json& json, const std::string& where) {
  if (!json.is_array()) schema_error(where, "modules", "must be an array");
  std::vector<Module> modules;
  modules.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i)
    modules.push_back(parse_module(json[i], where, "modules[" + std::to_string(i) + "]"));
  return modules;
}

Module parse_module_entry(const nlohmann::json& entry, const std::string& where,
                          const std::string& at) {
  return parse_module(entry, where, at);
}

NodeRecord parse_record(const Json& json, const std::string& where) {
  // Field paths of a lone record read "record.evidence".
  NodeRecord r = parse_record_at(json, where, "record", false);
  return r;
}

Document parse_document(const Json& json, const std::string& where) {
  return parse_document_as(json, where);
}

Document parse_document(const nlohmann::json& json, const std::string& where) {
  return parse_document_as(json, where);
}

Document parse_document_text(std::string_view text, const std::string& where) {
  check_json_limits(text, where);
  // Straight into the Document when the text is well-formed; through the
  // JSON tree otherwise, for its messages (document_reader.hpp).
  if (std::optional<Document> doc = read_document_fast(text)) {
    validate_consistency(*doc, where);
    return std::move(*doc);
  }
  Json json;
  try {
    json = Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {
    fail(MX_ERR_PARSE, where + ": not valid JSON: " + e.what());
  }
  return parse_document(json, where);
}

void validate_consistency(const Document& doc, const std::string& where) {
  validate_consistency(doc, ModuleIndex(doc), where);
}

void validate_consistency(const Document& doc, const ModuleIndex& paths, const std::string& where) {
  // Hashed views into `doc` (a document of 200,000 records spent seconds in
  // std::set<std::string> copies and compares), one index for every check
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
                   quoted(r.name) + " has two records (records of nodes sharing a name need "
                                    "\"index\", the node's position in the graph)");
    }
    if (paths.size() == 0 || found_recently(r.module)) continue;
    if (!paths.contains(r.module))
      schema_error(where, at() + ".module", quoted(r.module) + " is not in modules");
    recent[next_recent] = &r.module;
    next_recent = (next_recent + 1) % kRecent;
  }
}

}  // namespace modelexport::hierarchy
