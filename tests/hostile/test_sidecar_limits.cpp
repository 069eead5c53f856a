// A hierarchy document with one huge string (a 500 MB `class` took
// `validate` to 6.2 GB) is refused before it is parsed: strings in outside
// JSON are limited to 1 MiB (mx/common/json_limits.hpp), whether the
// document comes as text or as a sidecar file.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fixture_model.hpp"
#include "hostile_support.hpp"

using namespace mx::hostile;

namespace {

bool contains_text(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return true;
  MESSAGE("not found: " << part << "\n  in: " << text.substr(0, 400));
  return false;
}

// The document of tiny_net tagged by scope, its root module's class made
// `size` bytes long.
std::string document_with_class_of(mx_model* m, size_t size) {
  char* text = nullptr;
  size_t n = 0;
  REQUIRE(mx_model_hierarchy_json(m, &text, &n) == nullptr);
  nlohmann::json doc = nlohmann::json::parse(std::string(text, n));
  mx_free(text);
  REQUIRE(!doc.at("modules").empty());
  doc["modules"][0]["class"] = std::string(size, 'C');
  return doc.dump();
}

}  // namespace

TEST_CASE("a hierarchy document with a 2 MiB class string is refused, naming the limit") {
  Scratch s("sidecar_long_class");
  write(s.models() / "m.onnx", mx::testing::tiny_net().SerializeAsString());
  REQUIRE(pipeline(s.models() / "m.onnx", s.out() / "o.onnx").code == MX_OK);
  mx_model* m = nullptr;
  REQUIRE(mx_model_load_file((s.out() / "o.onnx").c_str(), &m) == nullptr);

  const Result as_text =
      take(mx_model_set_hierarchy_json(m, document_with_class_of(m, size_t{2} << 20).c_str(), 0), "set");
  CHECK(as_text.code == MX_ERR_PARSE);
  CHECK_MESSAGE(as_text.message.find("strings are limited to 1048576 bytes") != std::string::npos,
                as_text.message);
  // Just under the limit is a document like any other.
  CHECK(mx_model_set_hierarchy_json(m, document_with_class_of(m, (size_t{1} << 20) - 16).c_str(), 0) ==
        nullptr);

  // The same document as the sidecar `validate` reads.
  write(s.out() / "o.hierarchy.json", document_with_class_of(m, size_t{2} << 20));
  char* report = nullptr;
  size_t n = 0;
  mx_status* st = mx_validate_file((s.out() / "o.onnx").c_str(), nullptr, &report, &n);
  const std::string said = st ? mx_status_message(st) : std::string(report, n);
  CHECK_MESSAGE(said.find("strings are limited to 1048576 bytes") != std::string::npos, said.substr(0, 400));
  mx_status_release(st);
  mx_free(report);
  mx_model_release(m);
}

TEST_CASE(
    "hierarchy numbers: past int64, negative counts, impossible indexes and fractions are refused by name") {
  Scratch s("sidecar_numbers");
  write(s.models() / "m.onnx", mx::testing::tiny_net().SerializeAsString());
  REQUIRE(pipeline(s.models() / "m.onnx", s.out() / "o.onnx").code == MX_OK);
  mx_model* m = nullptr;
  REQUIRE(mx_model_load_file((s.out() / "o.onnx").c_str(), &m) == nullptr);
  char* text = nullptr;
  size_t n = 0;
  REQUIRE(mx_model_hierarchy_json(m, &text, &n) == nullptr);
  const nlohmann::json doc = nlohmann::json::parse(std::string(text, n));
  mx_free(text);
  REQUIRE(!doc.at("nodes").empty());

  auto refusal = [&](const std::string& edited) {
    const Result r = take(mx_model_set_hierarchy_json(m, edited.c_str(), 0), "set");
    CHECK(r.code != MX_OK);
    return r.message;
  };
  nlohmann::json d = doc;
  d["modules"][0]["parameters"] = 18446744073709551615ull;
  CHECK(contains_text(refusal(d.dump()),
                      "modules[0].parameters: must be an integer below 2^63, got 18446744073709551615"));
  d = doc;
  d["modules"][0]["own_parameters"] = -5;
  CHECK(contains_text(refusal(d.dump()), "modules[0].own_parameters: must be a count (>= 0), got -5"));
  d = doc;
  d["nodes"][0]["index"] = int64_t{1} << 62;  // no graph has that many nodes (tiny_net has a few)
  CHECK(contains_text(refusal(d.dump()),
                      "nodes[0].index: must be a node position (0 to 2^31-1), got 4611686018427387904"));
  d = doc;
  d["nodes"][0]["index"] = 0.0;
  CHECK(contains_text(refusal(d.dump()), "nodes[0].index: must be an integer, got 0.0"));
  mx_model_release(m);
}
