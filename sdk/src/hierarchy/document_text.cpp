#include "hierarchy/document_text.hpp"

#include "hierarchy/fields.hpp"
#include "util/json_text.hpp"

namespace mx::hierarchy {
namespace {

// A member name in quotes, the way append_json_string writes a name of
// plain printable ASCII (every name of the schema): writing it needs no
// check per module and record for characters to escape (the names were a
// third of writing a large tree). test_document_text compares the
// output with nlohmann's.
struct Quoted {
  std::string_view text;
};

constexpr Quoted kPath{"\"path\""}, kClass{"\"class\""}, kQualifiedClass{"\"qualified_class\""},
    kParent{"\"parent\""}, kChildren{"\"children\""}, kTag{"\"tag\""}, kParameters{"\"parameters\""},
    kOwnParameters{"\"own_parameters\""}, kExecuted{"\"executed\""}, kExecutionOrder{"\"execution_order\""},
    kForward{"\"forward\""}, kOp{"\"op\""}, kCall{"\"call\""}, kMethod{"\"method\""}, kName{"\"name\""},
    kIndex{"\"index\""}, kModule{"\"module\""}, kEvidence{"\"evidence\""};

// Writes JSON text the way nlohmann's dump(indent, ' ', false, replace)
// lays it out: compact when indent < 0, else one member or element per line
// and "key": value. Containers are opened and closed by the caller; values
// that are JSON already (producer, model, unknown keys) go through
// nlohmann's own serializer at the current depth.
class Writer {
 public:
  Writer(std::string& out, int indent) : out_(out), indent_(indent) {}
  // Text is handed to `sink` whenever `piece` bytes are pending, between
  // elements (flush_if_full), so that a large document never lives in
  // memory whole.
  Writer(std::string& out, int indent, const TextSink& sink, size_t piece)
      : out_(out), indent_(indent), sink_(&sink), piece_(piece) {}

  void flush_if_full() {
    if (sink_ && out_.size() >= piece_) flush();
  }
  void flush() {
    if (sink_ && !out_.empty()) (*sink_)(out_), out_.clear();
  }

  void open(char bracket) {
    out_ += bracket;
    ++depth_;
    first_ = true;
  }
  // `empty`: the container got no member (nlohmann writes "{}" and "[]").
  void close(char bracket, bool empty) {
    --depth_;
    if (!empty && indent_ >= 0) newline();
    out_ += bracket;
    first_ = false;
  }
  void key(std::string_view k) {
    element();
    append_json_string(out_, k);
    out_ += indent_ >= 0 ? ": " : ":";
  }
  void key(Quoted k) {
    element();
    out_ += k.text;
    out_ += indent_ >= 0 ? ": " : ":";
  }
  // Before an array element (key() does it for a member).
  void element() {
    if (!first_) out_ += ',';
    first_ = false;
    if (indent_ >= 0) newline();
  }
  void string(std::string_view s) { append_json_string(out_, s); }
  void raw(std::string_view s) { out_ += s; }
  void integer(int64_t v) { out_ += std::to_string(v); }
  void json(const Json& v) {
    nlohmann::detail::serializer<Json> s(nlohmann::detail::output_adapter<char>(out_), ' ',
                                         Json::error_handler_t::replace);
    s.dump(v, indent_ >= 0, false, static_cast<unsigned>(indent_ < 0 ? 0 : indent_),
           static_cast<unsigned>(indent_ < 0 ? 0 : indent_ * depth_));
  }
  void strings(const std::vector<std::string>& items) {
    open('[');
    for (const auto& s : items) element(), string(s);
    close(']', items.empty());
  }

 private:
  // A newline and the indentation of the current depth, copied from a run
  // of spaces (append(n, ' ') fills byte by byte, once per line of a
  // sidecar).
  void newline() {
    static const std::string kSpaces(256, ' ');
    out_ += '\n';
    size_t n = static_cast<size_t>(indent_) * static_cast<size_t>(depth_);
    for (; n > kSpaces.size(); n -= kSpaces.size()) out_.append(kSpaces);
    out_.append(kSpaces.data(), n);
  }
  std::string& out_;
  int indent_;
  int depth_ = 0;
  bool first_ = true;
  const TextSink* sink_ = nullptr;
  size_t piece_ = 0;
};

// Unknown keys after the known ones (fields.hpp), unless a known key has
// the name.
void extra_members(Writer& w, const Json& extra, FieldTable written) {
  if (extra.is_null()) return;  // nearly every module and record
  for (const auto& item : extra.items()) {
    if (written.knows(item.key())) continue;
    w.key(item.key());
    w.json(item.value());
  }
}

void forward_steps(Writer& w, const std::vector<ForwardStep>& steps) {
  w.open('[');
  for (const auto& s : steps) {
    w.element();
    w.open('{');
    w.key(s.kind == ForwardStep::Kind::op ? kOp : kCall);
    w.string(s.name);
    if (!s.method.empty()) w.key(kMethod), w.string(s.method);
    w.close('}', false);
  }
  w.close(']', steps.empty());
}

// A module's members, in the schema's order (kModuleFields).
void module(Writer& w, const Module& m) {
  w.open('{');
  w.key(kPath), w.string(m.path);
  w.key(kClass), w.string(m.class_name);
  if (!m.qualified_class().empty()) w.key(kQualifiedClass), w.string(m.qualified_class());
  w.key(kParent);
  if (const auto parent = stated_parent(m)) w.string(*parent);
  else w.raw("null");
  w.key(kChildren), w.strings(m.children);
  w.key(kTag), w.string(m.tag);
  if (m.parameters()) w.key(kParameters), w.integer(*m.parameters());
  if (m.own_parameters()) w.key(kOwnParameters), w.integer(*m.own_parameters());
  if (m.executed()) w.key(kExecuted), w.raw(*m.executed() ? "true" : "false");
  if (m.execution_order()) w.key(kExecutionOrder), w.integer(*m.execution_order());
  if (m.forward()) w.key(kForward), forward_steps(w, *m.forward());
  extra_members(w, m.extra(), kModuleTable);
  w.close('}', false);
}

void modules(Writer& w, const std::vector<Module>& list) {
  w.open('[');
  for (const auto& m : list) w.element(), module(w, m), w.flush_if_full();
  w.close(']', list.empty());
}

// record_to_json(doc, r, true)'s members. Its unknown keys replace known
// ones in place; a record whose extra has such a key is written through it.
void record(Writer& w, const Document& doc, const NodeRecord& r) {
  for (const auto& item : r.extra.items())
    if (kRecordTable.knows(item.key())) {
      w.json(record_to_json(doc, r, true));
      return;
    }
  w.open('{');
  w.key(kName), w.string(r.name);
  if (r.index) w.key(kIndex), w.integer(*r.index);
  w.key(kModule), w.string(r.module);
  w.key(kTag), w.string(record_tag(doc, r));
  w.key(kEvidence), w.string(evidence_name(r.evidence));
  extra_members(w, r.extra, kRecordTable);
  w.close('}', false);
}

void document(Writer& w, const Document& doc) {
  w.open('{');
  w.key("schema"), w.string(kSchema);
  if (!doc.producer.is_null()) w.key("producer"), w.json(doc.producer);
  if (!doc.model.is_null()) w.key("model"), w.json(doc.model);
  w.key("modules"), modules(w, doc.modules);
  w.key("nodes");
  w.open('[');
  for (const auto& r : doc.nodes) w.element(), record(w, doc, r), w.flush_if_full();
  w.close(']', doc.nodes.empty());
  w.key("statistics"), w.json(statistics_json(doc));
  extra_members(w, doc.extra, kDocumentTable);
  w.close('}', false);
}

}  // namespace

Json statistics_json(const Document& doc) {
  Json counts = Json::object();
  for (Evidence e : kAllEvidence) counts[evidence_name(e)] = 0;
  for (const auto& r : doc.nodes) {
    auto& c = counts[evidence_name(r.evidence)];
    c = c.get<int64_t>() + 1;
  }
  int64_t at_root = 0;
  for (const auto& r : doc.nodes) at_root += r.module.empty();
  Json stats = Json::object();
  stats["nodes"] = doc.nodes.size();
  stats["evidence"] = counts;
  stats["at_root"] = at_root;  // nodes on module "" whatever the evidence
  return stats;
}

std::string modules_text(const std::vector<Module>& list) {
  std::string out;
  out.reserve(list.size() * 160 + 16);
  Writer w(out, -1);
  modules(w, list);
  return out;
}

std::string document_text(const Document& doc, int indent) {
  std::string out;
  out.reserve((doc.modules.size() + doc.nodes.size()) * (indent < 0 ? 96 : 160) + 256);
  Writer w(out, indent);
  document(w, doc);
  return out;
}

void write_document_text(const Document& doc, int indent, const TextSink& sink, size_t piece) {
  std::string out;
  out.reserve(piece + (64u << 10));
  Writer w(out, indent, sink, piece);
  document(w, doc);
  w.flush();
}

}  // namespace mx::hierarchy
