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
#include "scratch_dir.hpp"
#include "modelexport/modelexport.h"

namespace mx::testing {

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
inline ModelPtr adopt(mx_model* m) {
  return ModelPtr(m, &mx_model_release);
}

inline std::string take_text(char* text) {
  std::string s = text ? text : "";
  mx_free(text);
  return s;
}

}  // namespace mx::testing
