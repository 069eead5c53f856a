#include "command.hpp"

#include "cli.hpp"

namespace mx::cli {

CLI::App* add_command(CLI::App& parent, const char* name, const char* summary, const std::string& details,
                      const std::string& example) {
  CLI::App* app = parent.add_subcommand(name, summary);
  app->allow_extras();
  app->group("commands");
  app->get_help_ptr()->group("options");  // made before the inherited defaults apply
  app->footer((details.empty() ? "" : details + "\n\n") + "example:\n  " + example);
  return app;
}

CLI::Option* add_positional(CLI::App* app, const char* name, std::string& value, const char* description) {
  return app->add_option(name, value, description)->required()->type_name("");
}

void add_output(CLI::App* app, std::string& out, const char* placeholder, const char* description) {
  app->add_option("-o,--output", out, description)->type_name(placeholder);
}

void add_quiet(CLI::App* app, bool& quiet) {
  app->add_flag("-q,--quiet", quiet, "no progress line (shown on stderr only when it is a terminal)");
}

void add_tag_storage(CLI::App* app, std::string& storage) {
  app->add_option("--tag-storage", storage,
                  "where the hierarchy records go in the ONNX file (default metadata)")
      ->type_name("metadata|doc_string|none");
}

CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const size_t first_digit = value.size() > 1 && (value[0] == '-' || value[0] == '+') ? 1 : 0;
        const bool whole = first_digit < value.size() &&
                           value.find_first_not_of("0123456789", first_digit) == std::string::npos;
        return whole ? "" : "'" + value + "' is not a whole number";
      },
      "");
}

void refuse_extras(const CLI::App& app) {
  for (const std::string& extra : app.remaining()) {
    if (extra.size() > 1 && extra[0] == '-') throw UsageError("unknown option '" + extra + "'");
    throw UsageError("unexpected argument '" + extra + "'");
  }
}

void require_output(const std::string& out, const char* placeholder) {
  if (out.empty()) throw UsageError(std::string("missing -o ") + placeholder);
}

}  // namespace mx::cli
