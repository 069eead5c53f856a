// The one reader of hierarchy documents: JSON events (nlohmann's SAX
// interface) go straight into a Document, checked against the field tables
// of fields.hpp. Text is read by the SAX parser, without a JSON tree of the
// whole file (at a million modules the tree, then copying every string out
// of it, cost three times what reading the text does); a JSON tree already
// in memory (a supplied hierarchy, a record from node metadata) is replayed
// as the same events.
//
// Messages: the first problem is reported in a fixed order, whatever the
// order of keys in the text: malformed JSON first, then the document's
// fields in table order (schema, modules, nodes), inside "modules" and
// "nodes" the first entry with a problem, inside an entry its fields in
// table order. Reading goes on after a problem (skipping what it cannot
// use) so that a problem that comes first in that order but later in the
// text is still the one reported. A repeated key is read as a JSON tree
// reads it: the last value wins.
#include "hierarchy/parse.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "hierarchy/fields.hpp"
#include "util/error.hpp"
#include "util/json_text.hpp"
#include "util/utf8.hpp"

namespace mx::hierarchy {
namespace {

// A value in a message, between quotes (not std::quoted's escaping).
std::string in_quotes(std::string_view s) {
  return "'" + printable(s) + "'";
}

// A JSON value of any shape built from events (producer, model, keys this
// version does not know, forward outlines): what a JSON tree would hold for
// it, in the same key order.
class Capture {
 public:
  void begin() {
    root_ = Json();
    stack_.clear();
  }
  Json take() { return std::move(root_); }
  void scalar(Json&& v) { place(std::move(v)); }
  void open(Json&& container) { stack_.push_back(place(std::move(container))); }
  // True when the outermost container closed.
  bool close() {
    stack_.pop_back();
    return stack_.empty();
  }
  void key(std::string&& k) { key_ = std::move(k); }

 private:
  // Earlier siblings are complete when a value is placed, so a container
  // growing never moves a value still on the stack.
  Json* place(Json&& v) {
    if (stack_.empty()) return &(root_ = std::move(v));
    Json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    return &(top[key_] = std::move(v));  // a repeated key: the last wins, in the first's place
  }

  Json root_;
  std::vector<Json*> stack_;
  std::string key_;
};

// A scalar as the parser delivers it.
struct Scalar {
  enum class Kind { null, boolean, integer, unsigned_integer, floating, string } kind;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string* s = nullptr;  // the parser's buffer (it may be moved from)

  Json to_json() const {
    switch (kind) {
      case Kind::null:
        return Json();
      case Kind::boolean:
        return Json(b);
      case Kind::integer:
        return Json(i);
      case Kind::unsigned_integer:
        return Json(u);
      case Kind::floating:
        return Json(d);
      case Kind::string:
        return Json(std::move(*s));
    }
    return Json();
  }
  // The JSON type name a tree would give the value ("number", "string").
  const char* type_name() const {
    switch (kind) {
      case Kind::null:
        return "null";
      case Kind::boolean:
        return "boolean";
      case Kind::string:
        return "string";
      default:
        return "number";
    }
  }
};

const char* type_name_of(ValueKind kind) {
  switch (kind) {
    case ValueKind::string:
    case ValueKind::string_or_null:
    case ValueKind::evidence:
      return "string";
    case ValueKind::boolean:
      return "boolean";
    case ValueKind::count:
    case ValueKind::integer:
    case ValueKind::position:
      return "number";
    default:
      return "array";  // strings, forward, modules, records
  }
}

// Reads `value` as an integer field, or says why it is none (message
// without the field's name). nullopt with an empty `why`: null, absent.
std::optional<int64_t> integer_value(const Scalar& s, ValueKind kind, std::string& why) {
  int64_t v = 0;
  switch (s.kind) {
    case Scalar::Kind::null:
      return std::nullopt;
    case Scalar::Kind::integer:
      v = s.i;
      break;
    case Scalar::Kind::unsigned_integer:
      // A tree's get<int64_t>() would wrap 18446744073709551615 to -1.
      if (s.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        why = "must be an integer below 2^63, got " + dump_text(Json(s.u));
        return std::nullopt;
      }
      v = static_cast<int64_t>(s.u);
      break;
    case Scalar::Kind::floating:  // not "must be number, got number"
      why = "must be an integer, got " + dump_text(Json(s.d));
      return std::nullopt;
    default:
      why = std::string("must be number, got ") + s.type_name();
      return std::nullopt;
  }
  if (kind == ValueKind::count && v < 0) why = "must be a count (>= 0), got " + std::to_string(v);
  // A graph holds at most 2^31-1 nodes (protobuf's repeated fields): a
  // larger index is no position of any graph, not a stale one.
  if (kind == ValueKind::position && (v < 0 || v > INT32_MAX))
    why = "must be a node position (0 to 2^31-1), got " + std::to_string(v);
  if (!why.empty()) return std::nullopt;
  return v;
}

// "forward": [{"op": "aten::add"} | {"call": "path"[, "method": "name"]}, ...]
std::vector<ForwardStep> forward_steps(const Json& steps, const std::string& where, const std::string& at) {
  auto problem = [&](const std::string& field, const std::string& what) {
    fail(MX_ERR_SCHEMA, where + ": " + field + ": " + what);
  };
  auto string_of = [&](const Json& step, const char* key, const std::string& step_at) -> const Json* {
    auto it = step.find(key);
    if (it == step.end()) return nullptr;
    if (!it->is_string()) problem(step_at + "." + key, std::string("must be string, got ") + it->type_name());
    return &*it;
  };
  std::vector<ForwardStep> out;
  out.reserve(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string step_at = at + "[" + std::to_string(i) + "]";
    const Json& j = steps[i];
    if (!j.is_object()) problem(step_at, "must be an object");
    const Json* op = string_of(j, "op", step_at);
    const Json* call = string_of(j, "call", step_at);
    if ((op != nullptr) == (call != nullptr))
      problem(step_at, "must have exactly one of \"op\" and \"call\"");
    ForwardStep s;
    s.kind = op ? ForwardStep::Kind::op : ForwardStep::Kind::call;
    s.name = (op ? op : call)->get<std::string>();
    if (const Json* method = string_of(j, "method", step_at)) {
      if (op) problem(step_at + ".method", "only a \"call\" step has a method");
      s.method = method->get<std::string>();
    }
    out.push_back(std::move(s));
  }
  return out;
}

// What is being read: the reader starts at one of the roots and walks
// down from there.
enum class Where {
  document_root,  // a whole document is expected
  modules_root,   // a "modules" array alone (model metadata)
  module_root,    // one module entry alone (a supplied hierarchy's)
  record_root,    // one record alone
  top,
  modules,
  module,
  children,
  nodes,
  record,
  end
};

// The object being read (the document, a module, a record): which fields
// were seen, and the first problem of each, reported in table order.
struct Entry {
  FieldTable table = kDocumentTable;
  uint32_t seen = 0;
  uint32_t required = 0;
  bool has_problem = false;
  std::array<std::string, 16> problems;  // by row; "" = none

  void start(FieldTable t, uint32_t required_rows) {
    table = t;
    seen = 0;
    required = required_rows;
    if (has_problem)
      for (auto& p : problems) p.clear();
    has_problem = false;
  }
  void problem(size_t row, std::string message) {
    if (!problems[row].empty()) return;
    problems[row] = std::move(message);
    has_problem = true;
  }
  // The entry's first problem in table order ("" when none).
  std::string first_problem(const std::string& where, const std::string& at) const {
    if (!has_problem && (seen & required) == required) return {};
    for (size_t row = 0; row < table.size; ++row) {
      if (!problems[row].empty()) return problems[row];
      if ((required >> row & 1) && !(seen >> row & 1))
        return where + ": " + field_name(at, row) + ": required field is missing";
    }
    return {};
  }
  std::string field_name(const std::string& at, size_t row) const {
    const std::string key(table.rows[row].key);
    return at.empty() ? key : at + "." + key;
  }
};

uint32_t required_rows(FieldTable t) {
  uint32_t mask = 0;
  for (size_t row = 0; row < t.size; ++row)
    if (t.rows[row].required) mask |= uint32_t{1} << row;
  return mask;
}

class Reader {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  // `root`: what is expected; `root_at` names a lone module or record in
  // messages; a lone record need not have a name.
  Reader(std::string where, Where root, std::string root_at = {})
      : where_name_(std::move(where)), where_(root), root_(root), root_at_(std::move(root_at)) {}

  // The SAX interface (nlohmann/detail/input/json_sax.hpp). Returning
  // false stops the parser: only malformed JSON does.
  bool null() { return scalar({Scalar::Kind::null}); }
  bool boolean(bool v) {
    Scalar s{Scalar::Kind::boolean};
    s.b = v;
    return scalar(s);
  }
  bool number_integer(number_integer_t v) {
    Scalar s{Scalar::Kind::integer};
    s.i = v;
    return scalar(s);
  }
  bool number_unsigned(number_unsigned_t v) {
    Scalar s{Scalar::Kind::unsigned_integer};
    s.u = v;
    return scalar(s);
  }
  bool number_float(number_float_t v, const string_t&) {
    Scalar s{Scalar::Kind::floating};
    s.d = v;
    return scalar(s);
  }
  bool string(string_t& v) {
    Scalar s{Scalar::Kind::string};
    s.s = &v;
    return scalar(s);
  }
  bool binary(binary_t&) { return scalar({Scalar::Kind::null}); }  // never from text or our trees
  bool start_object(std::size_t);
  bool end_object();
  bool start_array(std::size_t);
  bool end_array();
  bool key(string_t& k);
  template <typename Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& e) {
    malformed_ = where_name_ + ": not valid JSON: " + e.what();
    return false;
  }

  void reserve_modules(size_t n) { doc_.modules.reserve(n); }
  // The document, or the first problem as an Error.
  Document take_document();
  std::vector<Module> take_modules();
  Module take_module();
  NodeRecord take_record();

 private:
  bool scalar(const Scalar& s);
  void store(const Scalar& s);
  void store_module(ModuleField f, const Scalar& s);
  void store_record(RecordField f, const Scalar& s);
  void store_document(DocumentField f, const Scalar& s);
  void reset_field();
  bool start_container(bool is_object);
  bool end_container();
  void start_entry(Where entry);
  void end_entry();
  // Fails with the first problem, in the order the header describes.
  void throw_first_problem();

  Entry& current() { return in_entry() ? entry_ : top_; }
  bool in_entry() const { return where_ == Where::module || where_ == Where::record; }
  const FieldSpec& spec() { return current().table.rows[row_]; }
  bool known() { return row_ < current().table.size; }
  // The JSON path of the entry being read ("modules[3]", "record"; "" for
  // the document), built for a message only.
  std::string entry_at() const {
    if (entry_in_root_) return root_at_;
    const bool modules = where_ == Where::modules || where_ == Where::module || where_ == Where::children;
    return (modules ? "modules[" : "nodes[") + std::to_string(entry_count_ - 1) + "]";
  }
  // The document's row of the array of entries being read.
  size_t section_row() const {
    return static_cast<size_t>(where_ == Where::modules ? DocumentField::modules : DocumentField::nodes);
  }
  // An element of the array of entries that is no object: the array's
  // problem; the rest of it is skipped (`depth`: the containers to leave).
  bool entry_not_object(int depth) {
    ++entry_count_;
    top_.problem(section_row(), where_name_ + ": " + entry_at() + ": must be an object");
    skip_section_ = true;
    skip_depth_ = depth;
    return true;
  }
  void problem(const std::string& field, const std::string& what) {
    current().problem(row_, where_name_ + ": " + field + ": " + what);
  }
  void type_problem(const char* got) {
    problem(current().field_name(in_entry() ? entry_at() : "", row_),
            std::string("must be ") + type_name_of(spec().kind) + ", got " + got);
  }
  // Skips the container just opened (its events up to its end).
  bool skip() {
    skip_depth_ = 1;
    return true;
  }
  Json& extra_of_object();
  void store_capture();
  // A child that is no string: the problem of "children" (the placeholder
  // keeps the next child's position in messages).
  void child_not_string() {
    auto& children = doc_.modules.back().children;
    entry_.problem(row_, where_name_ + ": " + entry_at() + ".children[" + std::to_string(children.size()) +
                             "]: must be a string");
    children.emplace_back();
  }

  std::string where_name_;
  Document doc_;
  Where where_;
  Where root_;
  std::string root_at_;
  bool entry_in_root_ = false;
  Entry top_, entry_;
  size_t row_ = 0;  // the field being read (table size: an unknown key)
  std::string key_;
  size_t entry_count_ = 0;  // entries of the current array opened so far
  std::string schema_;
  std::string root_problem_;  // the root is not what was expected
  std::string malformed_;     // not JSON
  Capture capture_;
  int capture_depth_ = 0;
  int skip_depth_ = 0;
  bool skip_section_ = false;  // the skip ends with the array of entries it is in
};

Json& Reader::extra_of_object() {
  if (where_ == Where::module) return doc_.modules.back().details().extra;
  if (where_ == Where::record) return doc_.nodes.back().extra;
  return doc_.extra;
}

// A key already read is read again: the last value wins, so the first
// one's value and problem go.
void Reader::reset_field() {
  current().problems[row_].clear();
  if (where_ == Where::module) {
    Module& m = doc_.modules.back();
    switch (static_cast<ModuleField>(row_)) {
      case ModuleField::parent:
        m.parent.reset();
        break;
      case ModuleField::children:
        m.children.clear();
        break;
      case ModuleField::parameters:
        if (m.has_details()) m.details().parameters.reset();
        break;
      case ModuleField::own_parameters:
        if (m.has_details()) m.details().own_parameters.reset();
        break;
      case ModuleField::execution_order:
        if (m.has_details()) m.details().execution_order.reset();
        break;
      case ModuleField::forward:
        if (m.has_details()) m.details().forward.reset();
        break;
      default:
        break;  // the value is replaced
    }
  } else if (where_ == Where::record) {
    if (static_cast<RecordField>(row_) == RecordField::index) doc_.nodes.back().index.reset();
  } else if (where_ == Where::top) {
    if (static_cast<DocumentField>(row_) == DocumentField::modules) doc_.modules.clear();
    if (static_cast<DocumentField>(row_) == DocumentField::nodes) doc_.nodes.clear();
  }
}

bool Reader::key(string_t& k) {
  if (skip_depth_ > 0) return true;
  if (capture_depth_ > 0) {
    capture_.key(std::move(k));
    return true;
  }
  Entry& e = current();
  row_ = e.table.find(k);
  if (row_ < e.table.size) {
    const uint32_t bit = uint32_t{1} << row_;
    if (e.seen & bit) reset_field();
    e.seen |= bit;
  } else {
    key_ = std::move(k);
  }
  return true;
}

bool Reader::scalar(const Scalar& s) {
  if (skip_depth_ > 0) return true;
  if (capture_depth_ > 0) {
    capture_.scalar(s.to_json());
    return true;
  }
  switch (where_) {
    case Where::module:
    case Where::record:
    case Where::top:
      store(s);
      return true;
    case Where::children:
      if (s.kind == Scalar::Kind::string) {
        doc_.modules.back().children.push_back(std::move(*s.s));
      } else {
        child_not_string();
      }
      return true;
    case Where::modules:
    case Where::nodes:
      return entry_not_object(1);
    case Where::document_root:
      root_problem_ = where_name_ + ": the document must be a JSON object";
      return true;
    case Where::modules_root:
      root_problem_ = where_name_ + ": modules: must be an array";
      return true;
    case Where::module_root:
    case Where::record_root:
      root_problem_ = where_name_ + ": " + (root_at_.empty() ? "record" : root_at_) + ": must be an object";
      return true;
    default:
      return true;  // after the end: the parser reports it
  }
}

void Reader::store(const Scalar& s) {
  if (!known()) {
    extra_of_object()[key_] = s.to_json();
    return;
  }
  const ValueKind kind = spec().kind;
  const bool is_null = s.kind == Scalar::Kind::null;
  const bool nullable = kind == ValueKind::string_or_null || kind == ValueKind::count ||
                        kind == ValueKind::integer || kind == ValueKind::position ||
                        kind == ValueKind::forward || kind == ValueKind::any;
  if (is_null && nullable && kind != ValueKind::any) return;  // absent
  const bool wants_string =
      kind == ValueKind::string || kind == ValueKind::string_or_null || kind == ValueKind::evidence;
  if ((wants_string && s.kind != Scalar::Kind::string) ||
      (kind == ValueKind::boolean && s.kind != Scalar::Kind::boolean) || kind == ValueKind::strings ||
      kind == ValueKind::forward || kind == ValueKind::modules || kind == ValueKind::records)
    return type_problem(s.type_name());
  if (where_ == Where::module) return store_module(static_cast<ModuleField>(row_), s);
  if (where_ == Where::record) return store_record(static_cast<RecordField>(row_), s);
  store_document(static_cast<DocumentField>(row_), s);
}

void Reader::store_module(ModuleField f, const Scalar& s) {
  Module& m = doc_.modules.back();
  switch (f) {
    case ModuleField::path:
      m.path = std::move(*s.s);
      return;
    case ModuleField::class_name:
      m.class_name = std::move(*s.s);
      return;
    case ModuleField::qualified_class:
      m.details().qualified_class = std::move(*s.s);
      return;
    case ModuleField::parent:
      m.parent = std::move(*s.s);
      return;
    case ModuleField::tag:
      m.tag = std::move(*s.s);
      return;
    case ModuleField::executed:
      m.details().executed = s.b;
      return;
    case ModuleField::parameters:
    case ModuleField::own_parameters:
    case ModuleField::execution_order: {
      std::string why;
      const std::optional<int64_t> v = integer_value(s, spec().kind, why);
      if (!why.empty()) return problem(entry_.field_name(entry_at(), row_), why);
      ModuleDetails& d = m.details();
      (f == ModuleField::parameters       ? d.parameters
       : f == ModuleField::own_parameters ? d.own_parameters
                                          : d.execution_order) = v;
      return;
    }
    default:
      return;  // children and forward are arrays (start_array)
  }
}

void Reader::store_record(RecordField f, const Scalar& s) {
  NodeRecord& r = doc_.nodes.back();
  switch (f) {
    case RecordField::name:
      r.name = std::move(*s.s);
      return;
    case RecordField::module:
      r.module = std::move(*s.s);
      return;
    case RecordField::tag:
      r.tag = std::move(*s.s);
      return;
    case RecordField::evidence:
      if (auto e = evidence_from_name(*s.s)) {
        r.evidence = *e;
      } else {
        problem(entry_.field_name(entry_at(), row_),
                in_quotes(*s.s) + " is not one of " + evidence_choices());
      }
      return;
    case RecordField::index: {
      std::string why;
      r.index = integer_value(s, ValueKind::position, why);
      if (!why.empty()) problem(entry_.field_name(entry_at(), row_), why);
      return;
    }
  }
}

void Reader::store_document(DocumentField f, const Scalar& s) {
  switch (f) {
    case DocumentField::schema:
      schema_ = std::move(*s.s);
      if (!is_supported_schema(schema_))
        problem("schema", in_quotes(schema_) + " is not supported (expected " + kSchema + ")");
      return;
    case DocumentField::producer:
      doc_.producer = s.to_json();
      return;
    case DocumentField::model:
      doc_.model = s.to_json();
      return;
    default:
      return;  // statistics: derived data, recomputed on write
  }
}

// The captured value goes where its key says.
void Reader::store_capture() {
  Json value = capture_.take();
  if (!known()) {
    extra_of_object()[key_] = std::move(value);
    return;
  }
  if (where_ == Where::module) {  // forward
    try {
      doc_.modules.back().details().forward = forward_steps(value, where_name_, entry_at() + ".forward");
    } catch (const Error& e) {
      entry_.problem(row_, e.what());
    }
    return;
  }
  const auto f = static_cast<DocumentField>(row_);
  if (f == DocumentField::producer) doc_.producer = std::move(value);
  if (f == DocumentField::model) doc_.model = std::move(value);
}

// A container where a scalar or a different container was expected is a
// problem of its field, skipped; one that is any value is captured.
bool Reader::start_container(bool is_object) {
  const char* got = is_object ? "object" : "array";
  if (!known() || spec().kind == ValueKind::any || (!is_object && spec().kind == ValueKind::forward)) {
    capture_.begin();
    capture_.open(is_object ? Json::object() : Json::array());
    capture_depth_ = 1;
    return true;
  }
  if (!is_object && spec().kind == ValueKind::strings) {
    doc_.modules.back().children.clear();
    where_ = Where::children;
    return true;
  }
  if (!is_object && (spec().kind == ValueKind::modules || spec().kind == ValueKind::records)) {
    where_ = spec().kind == ValueKind::modules ? Where::modules : Where::nodes;
    entry_count_ = 0;
    return true;
  }
  type_problem(got);
  return skip();
}

void Reader::start_entry(Where entry) {
  ++entry_count_;
  where_ = entry;
  if (entry == Where::module) {
    doc_.modules.emplace_back();
    entry_.start(kModuleTable, required_rows(kModuleTable));
  } else {
    doc_.nodes.emplace_back();
    uint32_t required = required_rows(kRecordTable);
    if (root_ == Where::record_root) required &= ~(uint32_t{1} << static_cast<int>(RecordField::name));
    entry_.start(kRecordTable, required);
  }
}

// An entry's problem is its array's (the first entry with one); the rest
// of the array is skipped.
void Reader::end_entry() {
  std::string problem = entry_.first_problem(where_name_, entry_at());
  where_ = where_ == Where::module ? Where::modules : Where::nodes;
  if (problem.empty()) return;
  if (entry_in_root_) {
    root_problem_ = std::move(problem);
    return;
  }
  top_.problem(section_row(), std::move(problem));
  skip_section_ = true;
  skip_depth_ = 1;
}

bool Reader::start_object(std::size_t) {
  if (skip_depth_ > 0) return ++skip_depth_, true;
  if (capture_depth_ > 0) {
    capture_.open(Json::object());
    ++capture_depth_;
    return true;
  }
  switch (where_) {
    case Where::document_root:
      where_ = Where::top;
      top_.start(kDocumentTable, required_rows(kDocumentTable));
      return true;
    case Where::module_root:
    case Where::record_root:
      entry_in_root_ = true;
      start_entry(where_ == Where::module_root ? Where::module : Where::record);
      return true;
    case Where::modules:
      start_entry(Where::module);
      return true;
    case Where::nodes:
      start_entry(Where::record);
      return true;
    case Where::top:
    case Where::module:
    case Where::record:
      return start_container(true);
    case Where::children:
      return child_not_string(), skip();
    case Where::modules_root:
      root_problem_ = where_name_ + ": modules: must be an array";
      return skip();
    default:
      return skip();
  }
}

bool Reader::end_container() {
  if (skip_depth_ > 0) {
    if (--skip_depth_ > 0 || !skip_section_) return true;
    // The skip ended with the array of entries it was in.
    skip_section_ = false;
    where_ = root_ == Where::modules_root ? Where::end : Where::top;
    return true;
  }
  if (capture_depth_ > 0) {
    --capture_depth_;
    if (capture_.close()) store_capture();
    return true;
  }
  switch (where_) {
    case Where::module:
    case Where::record:
      end_entry();
      if (entry_in_root_) where_ = Where::end;
      return true;
    case Where::children:
      where_ = Where::module;
      return true;
    case Where::modules:
    case Where::nodes:
      where_ = root_ == Where::modules_root ? Where::end : Where::top;
      return true;
    case Where::top:
      where_ = Where::end;
      return true;
    default:
      return true;
  }
}

bool Reader::end_object() {
  return end_container();
}
bool Reader::end_array() {
  return end_container();
}

bool Reader::start_array(std::size_t) {
  if (skip_depth_ > 0) return ++skip_depth_, true;
  if (capture_depth_ > 0) {
    capture_.open(Json::array());
    ++capture_depth_;
    return true;
  }
  switch (where_) {
    case Where::top:
    case Where::module:
    case Where::record:
      return start_container(false);
    case Where::modules_root:
      where_ = Where::modules;
      entry_count_ = 0;
      return true;
    case Where::modules:
    case Where::nodes:
      return entry_not_object(2);  // this array, then the one of entries
    case Where::children:
      return child_not_string(), skip();
    case Where::document_root:
      root_problem_ = where_name_ + ": the document must be a JSON object";
      return skip();
    case Where::module_root:
    case Where::record_root:
      root_problem_ = where_name_ + ": " + (root_at_.empty() ? "record" : root_at_) + ": must be an object";
      return skip();
    default:
      return skip();
  }
}

void Reader::throw_first_problem() {
  if (!malformed_.empty()) fail(MX_ERR_PARSE, malformed_);
  if (!root_problem_.empty()) fail(MX_ERR_SCHEMA, root_problem_);
  if (root_ == Where::document_root) {
    const std::string problem = top_.first_problem(where_name_, "");
    if (!problem.empty()) fail(MX_ERR_SCHEMA, problem);
  }
  if (root_ == Where::modules_root && !top_.problems[static_cast<size_t>(DocumentField::modules)].empty())
    fail(MX_ERR_SCHEMA, top_.problems[static_cast<size_t>(DocumentField::modules)]);
}

Document Reader::take_document() {
  throw_first_problem();
  return std::move(doc_);
}

std::vector<Module> Reader::take_modules() {
  throw_first_problem();
  return std::move(doc_.modules);
}

Module Reader::take_module() {
  throw_first_problem();
  return std::move(doc_.modules.back());
}

NodeRecord Reader::take_record() {
  throw_first_problem();
  return std::move(doc_.nodes.back());
}

// The events of a JSON tree, as the parser would deliver them for its
// text (the tree's key order).
template <typename J>
void replay(const J& v, Reader& r) {
  switch (v.type()) {
    case J::value_t::null:
      r.null();
      return;
    case J::value_t::boolean:
      r.boolean(v.template get<bool>());
      return;
    case J::value_t::number_integer:
      r.number_integer(v.template get<int64_t>());
      return;
    case J::value_t::number_unsigned:
      r.number_unsigned(v.template get<uint64_t>());
      return;
    case J::value_t::number_float:
      r.number_float(v.template get<double>(), {});
      return;
    case J::value_t::string: {
      std::string s = v.template get_ref<const std::string&>();
      r.string(s);
      return;
    }
    case J::value_t::object:
      r.start_object(v.size());
      for (const auto& item : v.items()) {
        std::string k = item.key();
        r.key(k);
        replay(item.value(), r);
      }
      r.end_object();
      return;
    case J::value_t::array:
      r.start_array(v.size());
      for (const auto& item : v) replay(item, r);
      r.end_array();
      return;
    default:
      r.null();
      return;  // binary, discarded: never in a parsed document
  }
}

// At most as many modules as the text has "path" strings: reserved up
// front, a million modules are not moved through a growing vector (and
// its pages faulted in twice).
size_t path_keys(std::string_view text) {
  size_t n = 0;
  for (size_t at = text.find("\"path\""); at != std::string_view::npos; at = text.find("\"path\"", at + 6))
    ++n;
  return n;
}

template <typename J>
Document read_tree(const J& json, const std::string& where) {
  Reader reader(where, Where::document_root);
  replay(json, reader);
  Document doc = reader.take_document();
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

Document parse_document_text(std::string_view text, const std::string& where) {
  check_json_limits(text, where);
  Reader reader(where, Where::document_root);
  reader.reserve_modules(path_keys(text));
  Json::sax_parse(text.begin(), text.end(), &reader);
  Document doc = reader.take_document();
  validate_consistency(doc, where);
  return doc;
}

Document parse_document(const Json& json, const std::string& where) {
  return read_tree(json, where);
}

Document parse_document(const nlohmann::json& json, const std::string& where) {
  return read_tree(json, where);
}

std::vector<Module> parse_modules(const Json& json, const std::string& where) {
  Reader reader(where, Where::modules_root);
  reader.reserve_modules(json.is_array() ? json.size() : 0);
  replay(json, reader);
  return reader.take_modules();
}

Module parse_module_entry(const nlohmann::json& entry, const std::string& where, const std::string& at) {
  Reader reader(where, Where::module_root, at);
  replay(entry, reader);
  return reader.take_module();
}

NodeRecord parse_record(const Json& json, const std::string& where) {
  // Field paths of a lone record read "record.evidence".
  Reader reader(where, Where::record_root, "record");
  replay(json, reader);
  return reader.take_record();
}

}  // namespace mx::hierarchy
