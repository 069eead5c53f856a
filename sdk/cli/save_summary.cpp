#include "save_summary.hpp"

#include <cstdio>
#include <stdexcept>

#include "cli.hpp"

namespace modelexport::cli {
namespace {

using nlohmann::json;

// The hierarchy document without its "modules" (counted) and "nodes"
// (the model gives their count): a tag of a million modules spent seconds
// building and freeing that DOM to print one number, and at 200,000 nodes
// the records' DOM was a seventh of `tag`. Every other member (the
// statistics printed) is kept in `rest`.
class CountModules : public nlohmann::json_sax<json> {
 public:
  explicit CountModules(json& rest) : dom_(rest, true) {}
  size_t modules = 0;

  bool null() override { return skip() || dom_.null(); }
  bool boolean(bool v) override { return skip() || dom_.boolean(v); }
  bool number_integer(number_integer_t v) override { return skip() || dom_.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) override { return skip() || dom_.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) override {
    return skip() || dom_.number_float(v, s);
  }
  bool string(string_t& v) override { return skip() || dom_.string(v); }
  bool binary(binary_t& v) override { return skip() || dom_.binary(v); }
  bool start_object(std::size_t n) override { return open() || dom_.start_object(n); }
  bool end_object() override { return close() || dom_.end_object(); }
  bool start_array(std::size_t n) override {
    if (depth_ == 1 && (key_ == "modules" || key_ == "nodes")) {  // skipped from here on
      ++depth_;
      skipping_ = true;
      counting_ = key_ == "modules";
      return dom_.start_array(n);
    }
    return open() || dom_.start_array(n);
  }
  bool end_array() override {
    if (skipping_ && depth_ == 2) {
      --depth_;
      skipping_ = false;
      return dom_.end_array();
    }
    return close() || dom_.end_array();
  }
  bool key(string_t& k) override {
    if (skipping_) return true;
    if (depth_ == 1) key_ = k;
    return dom_.key(k);
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    throw std::runtime_error(std::string("hierarchy document: ") + e.what());
  }

 private:
  // A scalar element of a skipped array (a module counted) or a value
  // inside one.
  bool skip() {
    if (skipping_ && counting_ && depth_ == 2) ++modules;
    return skipping_;
  }
  bool open() {
    const bool skipped = skip();
    ++depth_;
    return skipped;
  }
  bool close() {
    --depth_;
    return skipping_;
  }
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  int depth_ = 0;
  bool skipping_ = false;
  bool counting_ = false;  // the skipped array is "modules"
  std::string key_;
};

}  // namespace

void validate_tag_storage(const std::string& tag_storage) {
  if (tag_storage != "metadata" && tag_storage != "doc_string" && tag_storage != "none")
    throw UsageError("--tag-storage must be metadata, doc_string or none, not '" + tag_storage + "'");
}

void save_and_report(const Model& model, const std::string& path, const std::string& tag_storage,
                     bool check, bool external_data, ProgressBar* progress) {
  validate_tag_storage(tag_storage);
  nlohmann::json options{{"tag_storage", tag_storage}, {"check", check}};
  if (external_data) options["external_data"] = true;
  model.save_file(path, options.dump(), progress ? progress->listener() : nullptr);
  if (progress) progress->clear();
  json hierarchy;
  CountModules counter(hierarchy);
  const std::string text = model.hierarchy_json();
  json::sax_parse(text.begin(), text.end(), &counter);
  std::printf("wrote %s: %zu nodes, %zu modules\n", path.c_str(), model.node_count(),
              counter.modules);
  std::printf("evidence: %s\n", evidence_mix(hierarchy["statistics"]).c_str());
}

}  // namespace modelexport::cli
