// `modelexport` — command line front of the SDK. One file per subcommand
// (each builds its CLI11 parser, command.hpp); this file only dispatches and
// turns errors into messages + exit codes (0 ok, 1 failure, 2 usage).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "command.hpp"
#include "modelexport/modelexport.hpp"

namespace {

using mx::cli::Command;

const char* const kFooter =
    "Run 'modelexport COMMAND --help' for a command's options and an example.\n"
    "Exit codes: 0 success, 1 failure, 2 usage error.\n"
    "Plugins are found in the install's plugin directory and MODELEXPORT_PLUGIN_PATH.";

int error(const std::string& message, int code, const std::string& command = "") {
  std::cerr << "modelexport: error: " << message << "\n";
  if (code == 2)
    std::cerr << "run 'modelexport " << (command.empty() ? "" : command + " ") << "--help' for usage\n";
  return code;
}

std::vector<Command> add_commands(CLI::App& app) {
  using namespace mx::cli;
  return {add_plugins(app),   add_inspect(app), add_export(app),   add_tag(app),    add_hierarchy(app),
          add_functions(app), add_extract(app), add_validate(app), add_compare(app)};
}

const Command* find(const std::vector<Command>& commands, const std::string& name) {
  for (const Command& c : commands)
    if (c.app->get_name() == name) return &c;
  return nullptr;
}

// Parses argv with the command's parser and runs it.
int run(CLI::App& app, const Command& command, int argc, char** argv) {
  const std::string name = command.app->get_name();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << command.app->help("modelexport");
    return 0;
  } catch (const CLI::ParseError& e) {
    return error(name + ": " + e.what(), 2, name);
  }
  try {
    mx::cli::refuse_extras(*command.app);
    return command.run();
  } catch (const mx::cli::UsageError& u) {
    return error(name + ": " + u.what(), 2, name);
  } catch (const std::exception& ex) {  // mx::Error and the rest
    return error(ex.what(), 1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(
      "modelexport: export PyTorch models to ONNX keeping the module hierarchy, "
      "and recover it for any ONNX file.",
      "modelexport");
  // Set before the commands are added: they share the parent's formatter.
  auto formatter = std::make_shared<CLI::Formatter>();
  // Lower case, as the help read before CLI11 ("usage: modelexport ...").
  formatter->label("Usage", "usage");
  formatter->label("OPTIONS", "options");
  formatter->label("Positionals", "arguments");
  formatter->label("SUBCOMMAND", "COMMAND");
  formatter->column_width(34);
  app.formatter(formatter);
  // Inherited by the commands, which are added below.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)->group("options");
  app.set_help_flag("-h,--help", "print this help and exit");
  app.require_subcommand(1);
  app.footer(kFooter);
  app.add_flag("--version", "print the version and exit");
  const std::vector<Command> commands = add_commands(app);

  if (argc < 2) return error("missing command", 2);
  const std::string first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") {
    // `modelexport help CMD` is `modelexport CMD --help`.
    const Command* topic = argc > 2 ? find(commands, argv[2]) : nullptr;
    std::cout << (topic ? topic->app->help("modelexport") : app.help());
    return 0;
  }
  if (first == "--version") {
    std::cout << "modelexport " << mx::version_string() << "\n";
    return 0;
  }
  const Command* command = find(commands, first);
  if (command) return run(app, *command, argc, argv);
  if (first.size() > 1 && first[0] == '-') return error("unknown option '" + first + "'", 2);
  return error("unknown command '" + first + "'", 2);
}
