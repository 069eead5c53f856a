// The rows of mx_model_modules_json read without a JSON DOM: `inspect` of a
// million-module model spent half its time parsing the SDK's text into
// nlohmann::json and dumping it again. Everything but the rows ("nodes",
// "functions", "statistics", …) is kept as JSON in `rest`.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace mx::cli {

struct ModuleRow {
  std::string path, class_name, tag;
  int64_t depth = 0, own_nodes = 0, total_nodes = 0, own_parameters = 0, parameters = 0;
  std::vector<std::pair<std::string, int64_t>> ops, ops_total;  // sorted by op
  std::optional<std::string> function;
};

struct ModuleRows {
  nlohmann::json rest;  // the document with "modules": []
  std::vector<ModuleRow> rows;
};

// Throws std::runtime_error on text that is not the SDK's module document.
ModuleRows parse_module_rows(std::string_view text);

// The rows as nlohmann's dump(indent) writes the array of their JSON
// objects (keys sorted) when it sits `level` levels deep.
void append_rows_json(std::string& out, const std::vector<ModuleRow>& rows, int indent, int level);

// Appends `value` as nlohmann's dump(indent) writes it `level` levels deep.
void append_json(std::string& out, const nlohmann::json& value, int indent, int level);

}  // namespace mx::cli
