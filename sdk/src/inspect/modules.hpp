// Per-module statistics for `modelexport inspect` and mx_model_modules_json:
// nodes own/total, parameters own/total, op histograms, and the local
// function each module instance maps to (when the model has functions).
// Computed once into typed rows; the C API streams them as text (a JSON
// DOM of a million rows, dumped, was most of `inspect`'s time), compare
// reads the rows.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace mx::inspect {

using OpCounts = std::map<std::string, int64_t>;  // "Add" or "domain::Op" -> count

struct ModuleRow {
  std::string path, class_name, tag;
  int depth = 0;
  int64_t own_nodes = 0, total_nodes = 0, own_parameters = 0, parameters = 0;
  OpCounts ops, ops_total;
  std::optional<std::string> function;  // local function of this instance
};

struct FunctionRow {
  std::string name, domain;
  int body_nodes = 0;
  std::vector<std::string> instances;  // module paths
};

struct ModuleStats {
  size_t nodes = 0;  // leaf nodes, calls expanded
  int top_level_nodes = 0;
  std::vector<FunctionRow> functions;
  std::vector<ModuleRow> modules;  // tree order, then modules only records mention
};

ModuleStats module_stats(const mx_model& model);

// The mx_model_modules_json document (abi/include/modelexport/modelexport.h)
// as compact text, written without a DOM. With
// `statistics`, the hierarchy document's "statistics" object is added
// (what `inspect` shows beside the rows, without asking for the whole
// document).
std::string modules_json_text(const mx_model& model, bool statistics);
// The counts alone, without a row per module (what a command's summary
// prints): {"top_level_nodes":K,"module_count":M} and, with `statistics`,
// the hierarchy document's "statistics".
std::string module_counts_json_text(const mx_model& model, bool statistics);

// The module an unknown path is attached to: its nearest ancestor in the
// tree (hashed lookups: linear in the number of modules overall).
std::string nearest_known(const std::string& path, const hierarchy::ModuleIndex& tree);

}  // namespace mx::inspect
