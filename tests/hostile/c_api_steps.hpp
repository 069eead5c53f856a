// Steps through the public C API for the hostile cases of test_special_paths,
// test_unnamed_nodes, test_invalid_names and test_lying_inputs: load (and
// tag with `scope`), save, validate, JSON answers, leftovers of a save.
#pragma once
#include <string>

#include "mx/onnx_proto.hpp"

#include "hostile_support.hpp"

namespace mx::hostile {

inline std::string bytes_of(const onnx::ModelProto& m) {
  return m.SerializeAsString();
}

inline mx_model* load(const fs::path& p) {
  mx_model* m = nullptr;
  mx_status* s = mx_model_load_file(p.c_str(), &m);
  REQUIRE_MESSAGE(s == nullptr, mx_status_message(s));
  return m;
}

inline mx_model* load_tagged(const fs::path& p) {
  mx_model* m = load(p);
  mx_status* s = mx_registry_tag(registry(), "scope", m, nullptr);
  REQUIRE_MESSAGE(s == nullptr, mx_status_message(s));
  return m;
}

inline Result save(const mx_model* m, const fs::path& out, const char* options = nullptr) {
  return take(mx_model_save_file(m, out.c_str(), options), "save");
}

// No temporary or backup name left in `dir` (".<name>.tmp-…", ".<name>.orig-…").
inline bool no_leftovers(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename();
    if (n.find(".tmp-") != std::string::npos || n.find(".orig-") != std::string::npos) return false;
  }
  return true;
}

inline std::string json_of(mx_status* (*fn)(const mx_model*, const char*, char**, size_t*),
                           const mx_model* m) {
  char* text = nullptr;
  size_t n = 0;
  mx_status* s = fn(m, nullptr, &text, &n);
  REQUIRE_MESSAGE(s == nullptr, mx_status_message(s));
  std::string out(text, n);
  mx_free(text);
  return out;
}

inline std::string validate(const fs::path& p, mx_code* code = nullptr) {
  char* text = nullptr;
  size_t n = 0;
  mx_status* s = mx_validate_file(p.c_str(), nullptr, &text, &n);
  if (code) *code = mx_status_code(s);
  std::string out = s ? mx_status_message(s) : std::string(text, n);
  mx_status_release(s);
  mx_free(text);
  return out;
}

}  // namespace mx::hostile
