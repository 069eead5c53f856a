// `--functions [CLASS,...]` for `modelexport export`, and the report that
// `functions` and `export --functions` print.
#pragma once
#include <string>
#include <vector>

#include "modelexport/modelexport.hpp"
#include "progress_bar.hpp"

namespace modelexport::cli {

// Removes `--functions`, `--functions CLASS,...` and `--functions=CLASS,...`
// from argv. A following token is taken as the class list unless it starts
// with '-' or looks like a file (contains '/', ends in .pt/.pth/.onnx).
// Returns true when the option was present; classes go to `classes`.
bool take_functions_option(std::vector<std::string>& argv, std::vector<std::string>& classes);

std::vector<std::string> split_commas(const std::string& text);

// Applies the pass with `classes` (empty = default selection) and prints
// "functions: N definitions, M calls" plus one line per definition.
void apply_functions(Model& model, const std::vector<std::string>& classes,
                     ProgressBar* progress = nullptr);

}  // namespace modelexport::cli
