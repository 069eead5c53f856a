// modelexport.h, "Modules as functions, extraction, inspection, validation":
// the functions pass, extraction, per-module statistics, rendering,
// validation, the atomic writer for an embedder's own files
// (util/output_set.hpp) and the comparison of two tagged models.
#include "c_api/guard.hpp"
#include "c_api/out_buffer.hpp"
#include "compare/compare.hpp"
#include "extract/extract.hpp"
#include "functions/to_functions.hpp"
#include "inspect/modules.hpp"
#include "inspect/render.hpp"
#include "inspect/validate.hpp"
#include "util/files.hpp"
#include "util/json_text.hpp"
#include "util/options.hpp"

using namespace mx;

extern "C" {

MX_API mx_status* mx_model_to_functions(mx_model* model, const char* options_json, char** out_report_json,
                                        size_t* out_size) {
  return mx_model_to_functions_with_progress(model, options_json, nullptr, out_report_json, out_size);
}

MX_API mx_status* mx_model_to_functions_with_progress(mx_model* model, const char* options_json,
                                                      const mx_progress* progress, char** out_report_json,
                                                      size_t* out_size) {
  return guard([&] {
    require(model, "model");
    if (out_report_json) *out_report_json = nullptr;
    if (out_size) *out_size = 0;
    Progress reporter(progress);
    const auto options = functions::parse_function_options(options_json);
    const auto report = functions::to_functions(*model, options, reporter);
    if (out_report_json) copy_out_text(dump_text(report), out_report_json, out_size);
  });
}

MX_API mx_status* mx_model_extract(const mx_model* model, const char* module_path, const char* options_json,
                                   mx_model** out) {
  return guard([&] {
    require(model, "model");
    require(module_path, "module_path");
    require(out, "out");
    *out = nullptr;
    const auto options = extract::parse_extract_options(options_json);
    *out = extract::extract_module(*model, module_path, options).release();
  });
}

MX_API mx_status* mx_model_modules_json(const mx_model* model, const char* options_json, char** out_json,
                                        size_t* out_size) {
  return guard([&] {
    require(model, "model");
    require(out_json, "out_json");
    *out_json = nullptr;
    const auto options = parse_options(options_json, "modules options", {"statistics", "rows"});
    const bool statistics = option_bool(options, "statistics", false);
    copy_out_text(option_bool(options, "rows", true) ? inspect::modules_json_text(*model, statistics)
                                                     : inspect::module_counts_json_text(*model, statistics),
                  out_json, out_size);
  });
}

MX_API mx_status* mx_model_render(const mx_model* model, const char* format, const char* options_json,
                                  char** out_text, size_t* out_size) {
  return guard([&] {
    require(model, "model");
    require(format, "format");
    require(out_text, "out_text");
    *out_text = nullptr;
    parse_options(options_json, "render options", {});
    copy_out_text(inspect::render(*model, format), out_text, out_size);
  });
}

MX_API mx_status* mx_validate_file(const char* path, const char* options_json, char** out_report_json,
                                   size_t* out_size) {
  return guard([&] {
    require(path, "path");
    require(out_report_json, "out_report_json");
    *out_report_json = nullptr;
    parse_options(options_json, "validate options", {});
    copy_out_text(dump_text(inspect::validate_file(path)), out_report_json, out_size);
  });
}

MX_API mx_status* mx_write_file(const char* path, const void* data, size_t size, const char* options_json) {
  return guard([&] {
    require(path, "path");
    if (size > 0) require(data, "data");
    parse_options(options_json, "write options", {});
    write_file_atomically(path, std::string_view(static_cast<const char*>(data), size));
  });
}

MX_API mx_status* mx_model_compare(const mx_model* a, const mx_model* b, const char* options_json,
                                   char** out_json, size_t* out_size) {
  return guard([&] {
    require(a, "a");
    require(b, "b");
    require(out_json, "out_json");
    *out_json = nullptr;
    if (out_size) *out_size = 0;
    const auto options = compare::parse_compare_options(options_json);
    copy_out_text(dump_text(compare::compare_models(*a, *b, options)), out_json, out_size);
  });
}

}  // extern "C"
