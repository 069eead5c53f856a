// `modelexport` — command line front of the SDK. One file per subcommand;
// this file only dispatches and turns errors into messages + exit codes
// (2 for usage errors, 1 for failures).
#include <cstdio>
#include <cstring>
#include <iostream>

#include "cli.hpp"
#include "modelexport/modelexport.hpp"

namespace {

const char* const kUsage =
    "usage: modelexport <command> [options]\n"
    "\n"
    "commands:\n"
    "  plugins [--json]                   list discovered plugins and refusals\n"
    "  inspect FILE.onnx [--json]         graph summary and module tree\n"
    "  export MODEL.pt -o OUT.onnx --input SPEC [--input SPEC ...]\n"
    "         [--opset N] [--tag-storage metadata|doc_string|none] [--drop-builtin-tags]\n"
    "                                     export a TorchScript model with hierarchy\n"
    "  tag IN.onnx -o OUT.onnx [--strategy NAME] [--hierarchy H.json]\n"
    "         [--tag-storage metadata|doc_string|none]\n"
    "                                     recover the hierarchy of any ONNX file\n"
    "  hierarchy MODEL.pt -o H.json       module tree of a TorchScript model\n"
    "\n"
    "  --version, --help\n"
    "\n"
    "input SPEC: name:dtype[dims], e.g. input_ids:int64[batch=2,seq=16]\n"
    "(a named dimension is dynamic, a number is static).\n"
    "Plugins are found in the install's plugin directory and MODELEXPORT_PLUGIN_PATH.\n";

struct Entry {
  const char* name;
  modelexport::cli::Command run;
};

const Entry kCommands[] = {
    {"plugins", modelexport::cli::cmd_plugins}, {"inspect", modelexport::cli::cmd_inspect},
    {"export", modelexport::cli::cmd_export},   {"tag", modelexport::cli::cmd_tag},
    {"hierarchy", modelexport::cli::cmd_hierarchy},
};

int error(const std::string& message, int code) {
  std::cerr << "modelexport: error: " << message << "\n";
  if (code == 2) std::cerr << "run 'modelexport --help' for usage\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return error("missing command", 2);
  const std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (command == "--version") {
    std::cout << "modelexport " << modelexport::version_string() << "\n";
    return 0;
  }
  const std::vector<std::string> args(argv + 2, argv + argc);
  for (const Entry& e : kCommands) {
    if (command != e.name) continue;
    try {
      return e.run(args);
    } catch (const modelexport::cli::UsageError& u) {
      return error(command + ": " + u.what(), 2);
    } catch (const modelexport::Error& err) {
      return error(err.what(), 1);
    } catch (const std::exception& ex) {
      return error(ex.what(), 1);
    }
  }
  return error("unknown command '" + command + "'", 2);
}
