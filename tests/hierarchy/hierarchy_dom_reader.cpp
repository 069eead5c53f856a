#include "hierarchy_dom_reader.hpp"

#include <cstdint>
#include <optional>

#include "hierarchy/parse.hpp"
#include "hierarchy/schema_messages.hpp"
#include "util/error.hpp"
#include "util/json_text.hpp"
#include "util/utf8.hpp"

namespace mx::hierarchy::oracle {
namespace {

std::string field_name(const std::string& prefix, const char* key) {
  return prefix.empty() ? std::string(key) : prefix + "." + key;
}

// The field readers below take either JSON flavour (J): documents are read
// as ordered_json, a supplied hierarchy's entries arrive as nlohmann::json,
// and converting a million of them to read them cost more than reading.

// Reads an object member, checking its JSON type; nullptr if absent.
template <typename J>
const J* member(const J& obj, const char* key, const std::string& where, const std::string& prefix,
                typename J::value_t type, bool required) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) schema_error(where, field_name(prefix, key), "required field is missing");
    return nullptr;
  }
  bool ok = it->type() == type || (type == J::value_t::number_integer && it->is_number_unsigned());
  if (!ok && type == J::value_t::number_integer && it->is_number_float())  // not "number, got number"
    schema_error(where, field_name(prefix, key), "must be an integer, got " + dump_text(*it));
  if (!ok)
    schema_error(where, field_name(prefix, key),
                 std::string("must be ") + J(type).type_name() + ", got " + it->type_name());
  return &*it;
}

template <typename J>
const J* string_member(const J& o, const char* key, const std::string& where, const std::string& prefix,
                       bool required) {
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
  if (v && *v < 0)
    schema_error(where, field_name(prefix, key), "must be a count (>= 0), got " + std::to_string(*v));
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
std::vector<ForwardStep> parse_forward(const J& steps, const std::string& where, const std::string& at) {
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
  Json extra = leftovers(j, {"path", "class", "qualified_class", "parent", "children", "tag", "parameters",
                             "own_parameters", "executed", "execution_order", "forward"});
  if (!extra.is_null()) m.details().extra = std::move(extra);
  return m;
}

template <typename J>
NodeRecord parse_record_at(const J& j, const std::string& where, const std::string& at, bool name_required) {
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
  if (!parsed) schema_error(where, at + ".evidence", quoted(ev) + " is not one of " + evidence_choices());
  r.evidence = *parsed;
  r.extra = leftovers(j, {"name", "index", "module", "tag", "evidence"});
  return r;
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
    doc.nodes.push_back(parse_record_at((*nodes)[i], where, "nodes[" + std::to_string(i) + "]", true));
  // Statistics are derived data, recomputed on every write: not kept.
  doc.extra = leftovers(json, {"schema", "producer", "model", "modules", "nodes", "statistics"});
  return doc;
}

}  // namespace

Document dom_parse_document(const Json& json, const std::string& where) {
  return parse_document_as(json, where);
}

NodeRecord dom_parse_record(const Json& json, const std::string& where) {
  return parse_record_at(json, where, "record", false);
}

std::vector<Module> dom_parse_modules(const Json& json, const std::string& where) {
  if (!json.is_array()) schema_error(where, "modules", "must be an array");
  std::vector<Module> modules;
  for (size_t i = 0; i < json.size(); ++i)
    modules.push_back(parse_module(json[i], where, "modules[" + std::to_string(i) + "]"));
  return modules;
}

}  // namespace mx::hierarchy::oracle
