// `modelexport compare`: per-module differences between two tagged models,
// built on the per-module statistics of inspect/modules.hpp (node counts
// own/total, own op histogram, parameters own/total) over the union of both
// files' module paths.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "model/model.hpp"

namespace mx::compare {

struct CompareOptions {
  std::string a_name = "model A";  // labels used in messages and the report
  std::string b_name = "model B";
};

// Strict options JSON (NULL/"" -> defaults): {"a_name": str, "b_name": str}.
CompareOptions parse_compare_options(const char* options_json);

// Report (see mx_model_compare in modelexport.h). Throws MX_ERR_UNSUPPORTED
// when either model carries no node records.
nlohmann::ordered_json compare_models(const mx_model& a, const mx_model& b, const CompareOptions& options);

}  // namespace mx::compare
