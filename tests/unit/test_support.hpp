// Helpers shared by the unit tests: scratch directories and C API wrappers
// that turn an mx_status into a doctest failure.
#pragma once
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "model/model.hpp"
#include "modelexport/modelexport.h"

namespace modelexport::testing {

// A fresh directory removed (with its content) at scope exit.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = std::filesystem::temp_directory_path() / "mxtest-XXXXXX";
    path_ = ::mkdtemp(&tmpl[0]);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_))
      names.push_back(e.path().filename().string());
    return names;
  }

 private:
  std::string path_;
};

// Code + message of a status, releasing it.
struct Outcome {
  mx_code code;
  std::string message;
};
inline Outcome outcome(mx_status* st) {
  Outcome o{mx_status_code(st), mx_status_message(st)};
  mx_status_release(st);
  return o;
}

using ModelPtr = std::unique_ptr<mx_model, decltype(&mx_model_release)>;
inline ModelPtr adopt(mx_model* m) { return ModelPtr(m, &mx_model_release); }

inline std::string take_text(char* text) {
  std::string s = text ? text : "";
  mx_free(text);
  return s;
}

}  // namespace modelexport::testing
