// `--functions [CLASS,...]` of `modelexport export`, and the report that
// `functions` and `export --functions` print.
#pragma once
#include <string>
#include <vector>

#include "modelexport/modelexport.hpp"
#include "progress_bar.hpp"

namespace mx::cli {

// True for a value that names a file rather than a class list (contains
// '/', ends in .pt/.pt2/.pth/.onnx): `export --functions m.pt2 -o out.onnx`
// gives the optional --functions value the model's path.
bool looks_like_file(const std::string& value);

std::vector<std::string> split_commas(const std::string& text);

// Applies the pass with `classes` (empty = default selection) and prints
// "functions: N definitions, M calls" plus one line per definition.
void apply_functions(Model& model, const std::vector<std::string>& classes, ProgressBar* progress = nullptr);

}  // namespace mx::cli
