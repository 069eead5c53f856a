#include "module_rows.hpp"

#include <algorithm>
#include <stdexcept>

namespace mx::cli {
namespace {

using nlohmann::json;
using DomParser = nlohmann::detail::json_sax_dom_parser<json>;

// SAX events: the rows of the top-level "modules" array fill typed rows;
// every other event goes to a DOM parser building `rest`.
class RowsHandler : public nlohmann::json_sax<json> {
 public:
  explicit RowsHandler(ModuleRows& out) : out_(out), dom_(out.rest, true) {}

  bool null() override { return in_row() ? row_null() : dom_.null(); }
  bool boolean(bool v) override { return in_row() ? bad("a boolean") : dom_.boolean(v); }
  bool number_integer(number_integer_t v) override { return in_row() ? row_int(v) : dom_.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) override {
    return in_row() ? row_int(static_cast<int64_t>(v)) : dom_.number_unsigned(v);
  }
  bool number_float(number_float_t v, const string_t& s) override {
    return in_row() ? bad("a float") : dom_.number_float(v, s);
  }
  bool string(string_t& v) override { return in_row() ? row_string(v) : dom_.string(v); }
  bool binary(binary_t& v) override { return in_row() ? bad("binary") : dom_.binary(v); }
  bool start_object(std::size_t n) override {
    ++depth_;
    if (in_rows_ && depth_ == 3) {  // a row
      out_.rows.emplace_back();
      ops_ = nullptr;
      return true;
    }
    if (in_row()) {  // "ops" or "ops_total"
      if (depth_ != 4 || (key_ != "ops" && key_ != "ops_total")) return bad("an object");
      ops_ = key_ == "ops" ? &out_.rows.back().ops : &out_.rows.back().ops_total;
      return true;
    }
    return dom_.start_object(n);
  }
  bool end_object() override {
    --depth_;
    if (in_rows_ && depth_ >= 2) {
      if (depth_ == 3) ops_ = nullptr;
      return true;
    }
    return dom_.end_object();
  }
  bool start_array(std::size_t n) override {
    ++depth_;
    if (in_row()) return bad("an array");
    if (depth_ == 2 && key_ == "modules") in_rows_ = true;
    return dom_.start_array(n);
  }
  bool end_array() override {
    --depth_;
    if (in_rows_ && depth_ == 1) in_rows_ = false;
    return dom_.end_array();
  }
  bool key(string_t& k) override {
    if (in_row()) {
      key_ = k;
      return true;
    }
    if (depth_ == 1) key_ = k;
    return dom_.key(k);
  }
  bool parse_error(std::size_t pos, const std::string& token, const nlohmann::detail::exception& e) override {
    throw std::runtime_error("module rows: " + std::string(e.what()) + " at " + std::to_string(pos) +
                             " near '" + token + "'");
  }

 private:
  bool in_row() const { return in_rows_ && depth_ >= 3; }
  bool bad(const char* what) {
    throw std::runtime_error(std::string("module rows: unexpected ") + what + " at key '" + key_ + "'");
  }
  bool row_null() {
    if (depth_ != 3 || key_ != "function") return bad("null");
    out_.rows.back().function.reset();
    return true;
  }
  bool row_int(int64_t v) {
    if (ops_) {
      ops_->emplace_back(key_, v);
      return true;
    }
    ModuleRow& r = out_.rows.back();
    if (key_ == "depth") r.depth = v;
    else if (key_ == "own_nodes") r.own_nodes = v;
    else if (key_ == "total_nodes") r.total_nodes = v;
    else if (key_ == "own_parameters") r.own_parameters = v;
    else if (key_ == "parameters") r.parameters = v;
    else return bad("a number");
    return true;
  }
  bool row_string(std::string& v) {
    if (ops_) return bad("a string");
    ModuleRow& r = out_.rows.back();
    if (key_ == "path") r.path = std::move(v);
    else if (key_ == "class") r.class_name = std::move(v);
    else if (key_ == "tag") r.tag = std::move(v);
    else if (key_ == "function") r.function = std::move(v);
    else return bad("a string");
    return true;
  }

  ModuleRows& out_;
  DomParser dom_;
  int depth_ = 0;
  bool in_rows_ = false;
  std::string key_;
  std::vector<std::pair<std::string, int64_t>>* ops_ = nullptr;
};

// A JSON string as nlohmann's dump() writes it (plain printable ASCII, nearly
// every name, is copied).
void append_string(std::string& out, const std::string& s) {
  const bool plain =
      std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
  if (!plain) {
    out += json(s).dump();
    return;
  }
  out += '"';
  out += s;
  out += '"';
}

void newline(std::string& out, int indent, int level) {
  out += '\n';
  out.append(static_cast<size_t>(indent * level), ' ');
}

// One member of a row object, "key": value, at `level`.
void member(std::string& out, const char* key, int indent, int level, bool first) {
  if (!first) out += ',';
  newline(out, indent, level);
  out += '"';
  out += key;
  out += "\": ";
}

void append_ops(std::string& out, std::vector<std::pair<std::string, int64_t>> ops, int indent, int level) {
  if (ops.empty()) {
    out += "{}";
    return;
  }
  std::sort(ops.begin(), ops.end());
  out += '{';
  for (size_t i = 0; i < ops.size(); ++i) {
    if (i) out += ',';
    newline(out, indent, level + 1);
    append_string(out, ops[i].first);
    out += ": ";
    out += std::to_string(ops[i].second);
  }
  newline(out, indent, level);
  out += '}';
}

// Members in std::map order, as nlohmann::json holds them.
void append_row(std::string& out, const ModuleRow& r, int indent, int level) {
  const int in = level + 1;
  out += '{';
  member(out, "class", indent, in, true), append_string(out, r.class_name);
  member(out, "depth", indent, in, false), out += std::to_string(r.depth);
  member(out, "function", indent, in, false);
  if (r.function) append_string(out, *r.function);
  else out += "null";
  member(out, "ops", indent, in, false), append_ops(out, r.ops, indent, in);
  member(out, "ops_total", indent, in, false), append_ops(out, r.ops_total, indent, in);
  member(out, "own_nodes", indent, in, false), out += std::to_string(r.own_nodes);
  member(out, "own_parameters", indent, in, false), out += std::to_string(r.own_parameters);
  member(out, "parameters", indent, in, false), out += std::to_string(r.parameters);
  member(out, "path", indent, in, false), append_string(out, r.path);
  member(out, "tag", indent, in, false), append_string(out, r.tag);
  member(out, "total_nodes", indent, in, false), out += std::to_string(r.total_nodes);
  newline(out, indent, level);
  out += '}';
}

}  // namespace

ModuleRows parse_module_rows(std::string_view text) {
  ModuleRows out;
  RowsHandler handler(out);
  json::sax_parse(text.begin(), text.end(), &handler);
  return out;
}

void append_rows_json(std::string& out, const std::vector<ModuleRow>& rows, int indent, int level) {
  if (rows.empty()) {
    out += "[]";
    return;
  }
  out += '[';
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i) out += ',';
    newline(out, indent, level + 1);
    append_row(out, rows[i], indent, level + 1);
  }
  newline(out, indent, level);
  out += ']';
}

void append_json(std::string& out, const json& value, int indent, int level) {
  nlohmann::detail::serializer<json> s(nlohmann::detail::output_adapter<char>(out), ' ');
  s.dump(value, true, false, static_cast<unsigned>(indent), static_cast<unsigned>(indent * level));
}

}  // namespace mx::cli
