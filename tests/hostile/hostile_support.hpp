// Helpers for the hostile-input catalogue: a scratch directory per test, the
// load -> tag (scope) -> save pipeline a vendor runs, and checks that a
// failed run left no file behind.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "modelexport/modelexport.h"

namespace mx::hostile {

namespace fs = std::filesystem;

struct Result {
  mx_code code = MX_OK;
  std::string message;
  std::string stage;  // "load", "tag", "save"
};

inline Result take(mx_status* s, const char* stage) {
  Result r;
  r.code = mx_status_code(s);
  r.message = mx_status_message(s);
  r.stage = stage;
  mx_status_release(s);
  return r;
}

class Scratch {
 public:
  explicit Scratch(const std::string& name) {
    dir_ = fs::temp_directory_path() / ("mx_hostile_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "models");
    fs::create_directories(dir_ / "out");
  }
  ~Scratch() { fs::remove_all(dir_); }
  fs::path models() const { return dir_ / "models"; }
  fs::path out() const { return dir_ / "out"; }
  fs::path root() const { return dir_; }
  // Files in out/ (nothing may be left there by a failed run).
  std::vector<std::string> outputs() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(out())) names.push_back(e.path().filename());
    return names;
  }

 private:
  fs::path dir_;
};

inline void write(const fs::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

inline mx_registry* registry() {
  static mx_registry* r = [] {
    mx_registry* reg = nullptr;
    const std::string opts =
        std::string("{\"discover\":false,\"plugin_dirs\":[\"") + MX_TEST_PLUGIN_DIR + "\"]}";
    mx_status* s = mx_registry_create(opts.c_str(), &reg);
    REQUIRE_MESSAGE(s == nullptr, mx_status_message(s));
    return reg;
  }();
  return r;
}

// load -> tag with the scope strategy -> save (default options: checker on).
inline Result pipeline(const fs::path& in, const fs::path& out, const char* save_options = nullptr) {
  mx_model* m = nullptr;
  if (mx_status* s = mx_model_load_file(in.c_str(), &m)) {
    CHECK(m == nullptr);
    return take(s, "load");
  }
  Result r;
  if (mx_status* s = mx_registry_tag(registry(), "scope", m, nullptr)) r = take(s, "tag");
  else if (mx_status* s2 = mx_model_save_file(m, out.c_str(), save_options)) r = take(s2, "save");
  mx_model_release(m);
  return r;
}

}  // namespace mx::hostile
