// The functions pass (docs/functions.md): selected module instances become
// calls to ONNX local functions (domain "modelexport.fn"), nested as the
// module tree nests; structurally identical instances share one
// FunctionProto, their weights passed as inputs.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"
#include "progress/progress.hpp"

namespace mx::functions {

struct FunctionOptions {
  std::vector<std::string> classes;  // class or qualified class names
  std::vector<std::string> modules;  // explicit module paths
  int min_nodes = 2;                 // default selection only
  bool include_builtin = false;      // default selection: torch.nn.* too
};

// Parses {"classes":[...],"modules":[...],"min_nodes":N,"include_builtin":b}.
FunctionOptions parse_function_options(const char* options_json);

// Rewrites `model` in place. Returns the report:
// {"functions":N,"calls":M,"definitions":[{"name","class","structure",
//  "body_nodes","instances":[...]}],"skipped":[{"module","reason"}],
//  "record_mismatches":K}. MX_ERR_UNSUPPORTED when the model has no module
// tree or already has modelexport functions. Reports "functions" (modules
// converted / selected) to `progress`; cancelled, the model is unchanged.
nlohmann::ordered_json to_functions(mx_model& model, const FunctionOptions& options,
                                    Progress& progress = Progress::none());

}  // namespace mx::functions
