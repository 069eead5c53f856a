#include "hierarchy/document_reader.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "hierarchy/parse.hpp"
#include "util/error.hpp"

namespace modelexport::hierarchy {
namespace {

// A JSON value of any shape built from SAX events (producer, model, keys
// this version does not know, forward outlines): what the JSON tree would
// hold for it, in the same key order.
class Capture {
 public:
  void begin() {
    root_ = Json();
    stack_.clear();
    started_ = false;
  }
  Json take() { return std::move(root_); }

  void scalar(Json&& v) { place(std::move(v)); }
  void open(Json&& container) { stack_.push_back(place(std::move(container))); }
  void close() { stack_.pop_back(); }
  void key(std::string&& k) { key_ = std::move(k); }

 private:
  // Earlier siblings are complete when a value is placed, so a container
  // growing never moves a value still on the stack.
  Json* place(Json&& v) {
    started_ = true;
    if (stack_.empty()) return &(root_ = std::move(v));
    Json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    return &(top[key_] = std::move(v));  // a repeated key: the last wins, as in the tree
  }

  Json root_;
  std::vector<Json*> stack_;
  std::string key_;
  bool started_ = false;
};

enum class Where { start, top, modules, module, children, nodes, record, end };

// Fields of a module entry and of a node record; `other` goes to `extra`.
enum class Field {
  none, path, class_name, qualified_class, parent, children, tag, parameters, own_parameters,
  executed, execution_order, forward, name, index, module, evidence, schema, producer, model,
  modules, nodes, statistics, other
};

Field module_field(const std::string& k) {
  if (k == "path") return Field::path;
  if (k == "class") return Field::class_name;
  if (k == "children") return Field::children;
  if (k == "parent") return Field::parent;
  if (k == "tag") return Field::tag;
  if (k == "qualified_class") return Field::qualified_class;
  if (k == "parameters") return Field::parameters;
  if (k == "own_parameters") return Field::own_parameters;
  if (k == "executed") return Field::executed;
  if (k == "execution_order") return Field::execution_order;
  if (k == "forward") return Field::forward;
  return Field::other;
}

Field record_field(const std::string& k) {
  if (k == "name") return Field::name;
  if (k == "index") return Field::index;
  if (k == "module") return Field::module;
  if (k == "tag") return Field::tag;
  if (k == "evidence") return Field::evidence;
  return Field::other;
}

Field top_field(const std::string& k) {
  if (k == "schema") return Field::schema;
  if (k == "producer") return Field::producer;
  if (k == "model") return Field::model;
  if (k == "modules") return Field::modules;
  if (k == "nodes") return Field::nodes;
  if (k == "statistics") return Field::statistics;
  return Field::other;
}

// A scalar as the SAX parser delivers it.
struct Scalar {
  enum class Kind { null, boolean, integer, unsigned_integer, floating, string } kind;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string* s = nullptr;  // the parser's buffer (it may be moved from)

  Json to_json() const {
    switch (kind) {
      case Kind::null: return Json();
      case Kind::boolean: return Json(b);
      case Kind::integer: return Json(i);
      case Kind::unsigned_integer: return Json(u);
      case Kind::floating: return Json(d);
      case Kind::string: return Json(std::move(*s));
    }
    return Json();
  }
  // parse.cpp's int_member: an integer or an unsigned one that fits.
  bool as_int64(int64_t& out) const {
    if (kind == Kind::integer) return out = i, true;
    if (kind == Kind::unsigned_integer && u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return out = static_cast<int64_t>(u), true;
    return false;
  }
};

class Reader {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  // The SAX interface (nlohmann/detail/input/json_sax.hpp). Returning
  // false stops the parser: the document is then read the slow way.
  bool null() { return scalar({Scalar::Kind::null}); }
  bool boolean(bool v) { Scalar s{Scalar::Kind::boolean}; s.b = v; return scalar(s); }
  bool number_integer(number_integer_t v) { Scalar s{Scalar::Kind::integer}; s.i = v; return scalar(s); }
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
  bool string(string_t& v) { Scalar s{Scalar::Kind::string}; s.s = &v; return scalar(s); }
  bool binary(binary_t&) { return false; }
  bool start_object(std::size_t);
  bool end_object();
  bool start_array(std::size_t);
  bool end_array();
  bool key(string_t& k);
  template <typename Exception>
  bool parse_error(std::size_t, const std::string&, const Exception&) { return false; }

  std::optional<Document> result();
  void reserve_modules(size_t n) { doc_.modules.reserve(n); }

 private:
  bool scalar(const Scalar& s);
  bool module_scalar(const Scalar& s);
  bool record_scalar(const Scalar& s);
  bool top_scalar(const Scalar& s);
  bool start_capture(Json&& container);
  bool finish_capture();
  // Marks a known field as read; false when it was already (a repeated key).
  bool first_time(Field f) {
    const uint64_t bit = uint64_t{1} << static_cast<int>(f);
    if (seen_ & bit) return false;
    seen_ |= bit;
    return true;
  }
  bool seen(Field f) const { return seen_ & (uint64_t{1} << static_cast<int>(f)); }
  Json& extra_of_object();

  Document doc_;
  Where where_ = Where::start;
  Field field_ = Field::none;
  std::string key_;
  uint64_t seen_ = 0, top_seen_ = 0;
  std::string schema_;
  Capture capture_;
  bool capturing_ = false;
  int capture_depth_ = 0;
};

Json& Reader::extra_of_object() {
  if (where_ == Where::module) return doc_.modules.back().details().extra;
  if (where_ == Where::record) return doc_.nodes.back().extra;
  return doc_.extra;
}

bool Reader::start_capture(Json&& container) {
  capture_.begin();
  capture_.open(std::move(container));
  capturing_ = true;
  capture_depth_ = 1;
  return true;
}

// The captured value goes where its key says.
bool Reader::finish_capture() {
  capturing_ = false;
  Json value = capture_.take();
  switch (field_) {
    case Field::producer: doc_.producer = std::move(value); return true;
    case Field::model: doc_.model = std::move(value); return true;
    case Field::statistics: return true;  // derived data, recomputed on write
    case Field::forward:
      try {
        doc_.modules.back().details().forward = parse_forward_steps(value, "hierarchy", "forward");
      } catch (const Error&) {
        return false;
      }
      return true;
    case Field::other: {
      Json& extra = extra_of_object();
      if (extra.is_object() && extra.contains(key_)) return false;
      extra[key_] = std::move(value);
      return true;
    }
    default: return false;
  }
}

bool Reader::scalar(const Scalar& s) {
  if (capturing_) {
    capture_.scalar(s.to_json());
    return true;
  }
  switch (where_) {
    case Where::module: return module_scalar(s);
    case Where::record: return record_scalar(s);
    case Where::top: return top_scalar(s);
    case Where::children:
      if (s.kind != Scalar::Kind::string) return false;
      doc_.modules.back().children.push_back(std::move(*s.s));
      return true;
    default: return false;  // a scalar document, or a scalar among modules/nodes
  }
}

bool Reader::module_scalar(const Scalar& s) {
  Module& m = doc_.modules.back();
  const bool is_string = s.kind == Scalar::Kind::string;
  const bool is_null = s.kind == Scalar::Kind::null;
  switch (field_) {
    case Field::path: return is_string && (m.path = std::move(*s.s), true);
    case Field::class_name: return is_string && (m.class_name = std::move(*s.s), true);
    case Field::qualified_class: return is_string && (m.details().qualified_class = std::move(*s.s), true);
    case Field::tag: return is_string && (m.tag = std::move(*s.s), true);
    case Field::parent:
      if (is_null) return true;
      return is_string && (m.parent = std::move(*s.s), true);
    case Field::executed:
      return s.kind == Scalar::Kind::boolean && (m.details().executed = s.b, true);
    case Field::parameters:
    case Field::own_parameters:
    case Field::execution_order: {
      if (is_null) return true;
      int64_t v = 0;
      if (!s.as_int64(v)) return false;
      if (v < 0 && field_ != Field::execution_order) return false;  // parse.cpp says why
      ModuleDetails& d = m.details();
      (field_ == Field::parameters ? d.parameters
       : field_ == Field::own_parameters ? d.own_parameters : d.execution_order) = v;
      return true;
    }
    case Field::forward: return is_null;
    case Field::other: {
      if (m.extra().is_object() && m.extra().contains(key_)) return false;
      m.details().extra[key_] = s.to_json();
      return true;
    }
    default: return false;  // "children" must be an array
  }
}

bool Reader::record_scalar(const Scalar& s) {
  NodeRecord& r = doc_.nodes.back();
  const bool is_string = s.kind == Scalar::Kind::string;
  switch (field_) {
    case Field::name: return is_string && (r.name = std::move(*s.s), true);
    case Field::module: return is_string && (r.module = std::move(*s.s), true);
    case Field::tag: return is_string && (r.tag = std::move(*s.s), true);
    case Field::evidence: {
      if (!is_string) return false;
      auto e = evidence_from_name(*s.s);
      return e && (r.evidence = *e, true);
    }
    case Field::index: {
      if (s.kind == Scalar::Kind::null) return true;
      int64_t v = 0;
      return s.as_int64(v) && v >= 0 && v <= INT32_MAX && (r.index = v, true);  // else parse.cpp says why
    }
    case Field::other: {
      if (r.extra.is_object() && r.extra.contains(key_)) return false;
      r.extra[key_] = s.to_json();
      return true;
    }
    default: return false;
  }
}

bool Reader::top_scalar(const Scalar& s) {
  switch (field_) {
    case Field::schema:
      return s.kind == Scalar::Kind::string && (schema_ = std::move(*s.s), true);
    case Field::producer: doc_.producer = s.to_json(); return true;
    case Field::model: doc_.model = s.to_json(); return true;
    case Field::statistics: return true;
    case Field::other: {
      if (doc_.extra.is_object() && doc_.extra.contains(key_)) return false;
      doc_.extra[key_] = s.to_json();
      return true;
    }
    default: return false;  // "modules" and "nodes" must be arrays
  }
}

bool Reader::key(string_t& k) {
  if (capturing_) {
    capture_.key(std::move(k));
    return true;
  }
  Field f = where_ == Where::module   ? module_field(k)
            : where_ == Where::record ? record_field(k)
                                      : top_field(k);
  if (f != Field::other && !first_time(f)) return false;
  field_ = f;
  key_ = std::move(k);
  return true;
}

bool Reader::start_object(std::size_t) {
  if (capturing_) {
    capture_.open(Json::object());
    ++capture_depth_;
    return true;
  }
  switch (where_) {
    case Where::start: where_ = Where::top; return true;
    case Where::modules:
      doc_.modules.emplace_back();
      where_ = Where::module;
      seen_ = 0;
      return true;
    case Where::nodes:
      doc_.nodes.emplace_back();
      where_ = Where::record;
      seen_ = 0;
      return true;
    case Where::top:
      if (field_ == Field::schema || field_ == Field::modules || field_ == Field::nodes) return false;
      return start_capture(Json::object());
    case Where::module:
    case Where::record:
      if (field_ != Field::other) return false;
      return start_capture(Json::object());
    default: return false;
  }
}

bool Reader::end_object() {
  if (capturing_) {
    capture_.close();
    return --capture_depth_ > 0 || finish_capture();
  }
  switch (where_) {
    case Where::module:
      where_ = Where::modules;
      return seen(Field::path) && seen(Field::class_name);
    case Where::record:
      where_ = Where::nodes;
      return seen(Field::name) && seen(Field::module) && seen(Field::evidence);
    case Where::top: where_ = Where::end; return true;
    default: return false;
  }
}

bool Reader::start_array(std::size_t) {
  if (capturing_) {
    capture_.open(Json::array());
    ++capture_depth_;
    return true;
  }
  switch (where_) {
    case Where::top:
      // The top-level "seen" set is kept apart from the entries' one.
      if (field_ == Field::modules || field_ == Field::nodes) {
        top_seen_ = seen_;
        where_ = field_ == Field::modules ? Where::modules : Where::nodes;
        return true;
      }
      if (field_ == Field::schema) return false;
      return start_capture(Json::array());
    case Where::module:
      if (field_ == Field::children) {
        where_ = Where::children;
        return true;
      }
      if (field_ == Field::forward || field_ == Field::other) return start_capture(Json::array());
      return false;
    case Where::record:
      return field_ == Field::other && start_capture(Json::array());
    default: return false;
  }
}

bool Reader::end_array() {
  if (capturing_) {
    capture_.close();
    return --capture_depth_ > 0 || finish_capture();
  }
  switch (where_) {
    case Where::children: where_ = Where::module; return true;
    case Where::modules:
    case Where::nodes:
      where_ = Where::top;
      seen_ = top_seen_;
      return true;
    default: return false;
  }
}

std::optional<Document> Reader::result() {
  if (where_ != Where::end || !seen(Field::modules) || !seen(Field::nodes) ||
      !seen(Field::schema) || !is_supported_schema(schema_))
    return std::nullopt;
  return std::move(doc_);
}

}  // namespace

namespace {

// At most as many modules as the text has "path" strings: reserved up
// front, a million modules are not moved through a growing vector (and
// its pages faulted in twice).
size_t path_keys(std::string_view text) {
  size_t n = 0;
  for (size_t at = text.find("\"path\""); at != std::string_view::npos;
       at = text.find("\"path\"", at + 6))
    ++n;
  return n;
}

}  // namespace

std::optional<Document> read_document_fast(std::string_view text) {
  Reader reader;
  reader.reserve_modules(path_keys(text));
  // Without exceptions: a JSON error only ends the fast path.
  if (!Json::sax_parse(text.begin(), text.end(), &reader)) return std::nullopt;
  return reader.result();
}

}  // namespace modelexport::hierarchy
