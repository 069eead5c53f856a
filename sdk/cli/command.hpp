// How a subcommand is put together: a CLI11 parser whose options are bound
// to the command's own state, and what runs once the command line parsed.
// Options several commands share, and the checks CLI11 leaves to us, are
// here so that every command spells them the same way.
#pragma once
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace mx::cli {

struct Command {
  CLI::App* app;
  std::function<int()> run;  // the exit code
};

Command add_plugins(CLI::App& parent);
Command add_inspect(CLI::App& parent);
Command add_export(CLI::App& parent);
Command add_tag(CLI::App& parent);
Command add_hierarchy(CLI::App& parent);
Command add_functions(CLI::App& parent);
Command add_extract(CLI::App& parent);
Command add_validate(CLI::App& parent);
Command add_compare(CLI::App& parent);

// A subcommand whose --help ends with `details` (may be empty) and one
// `example` invocation. Unknown options and surplus arguments are kept
// aside by the parser and refused by refuse_extras(), so that the message
// can say which kind of argument was wrong.
CLI::App* add_command(CLI::App& parent, const char* name, const char* summary, const std::string& details,
                      const std::string& example);

// A required positional argument, shown in the usage line as `name`.
CLI::Option* add_positional(CLI::App* app, const char* name, std::string& value, const char* description);
// -o,--output PLACEHOLDER; a missing output is checked by require_output()
// ("missing -o OUT.onnx"), not by CLI11.
void add_output(CLI::App* app, std::string& out, const char* placeholder, const char* description);
void add_quiet(CLI::App* app, bool& quiet);
void add_tag_storage(CLI::App* app, std::string& storage);

// Accepts a whole number only, all of it ("17", not "17abc" or "1e3"); the
// message names the value (CLI11's own reads "Could not convert: ...").
CLI::Validator whole_number();

// UsageError for the first unknown option or surplus argument left over
// by the parse of `app`.
void refuse_extras(const CLI::App& app);
// UsageError "missing -o PLACEHOLDER" when `out` is empty.
void require_output(const std::string& out, const char* placeholder);

}  // namespace mx::cli
