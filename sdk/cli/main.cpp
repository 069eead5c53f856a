// `modelexport` — command line front of the SDK. One file per subcommand;
// this file only dispatches and turns errors into messages + exit codes
// (2 for usage errors, 1 for failures).
#include <cstdio>
#include <cstring>
#include <iostream>

#include "cli.hpp"
#include "modelexport/modelexport.hpp"

namespace modelexport::cli {
int cmd_compare(const std::vector<std::string>& args);  // cmd_compare.cpp
}

namespace {

const char* const kUsage =
    "usage: modelexport <command> [options]\n"
    "\n"
    "commands:\n"
    "  plugins [--json]                   list discovered plugins and refusals\n"
    "  inspect FILE.onnx [--json] [--format text|json|graphml|dot] [-o OUT]\n"
    "                                     graph summary and per-module statistics\n"
    "                                     (nodes, parameters, ops, function), or a\n"
    "                                     drawing with nodes nested in modules\n"
    "  export MODEL.pt2|MODEL.pt -o OUT.onnx [--input SPEC ...] [--frontend NAME]\n"
    "         [--opset N] [--tag-storage metadata|doc_string|none] [--drop-builtin-tags]\n"
    "         [--functions [CLASS,...]]   (modules as local functions, see 'functions')\n"
    "         [--external-data]           weights in OUT.onnx.data (automatic over 2 GB)\n"
    "         [--quiet]                   no progress line (shown on stderr when it\n"
    "                                     is a terminal)\n"
    "                                     export a torch.export archive (.pt2; inputs\n"
    "                                     from the program, specs optional) or a\n"
    "                                     TorchScript file (.pt; specs required)\n"
    "  tag IN.onnx -o OUT.onnx [--strategy NAME] [--hierarchy H.json]\n"
    "         [--tag-storage metadata|doc_string|none] [--quiet]\n"
    "                                     recover the hierarchy of any ONNX file\n"
    "  hierarchy MODEL -o H.json          module tree of a .pt2 or TorchScript model\n"
    "  functions IN.onnx -o OUT.onnx [--classes CLASS,...] [--tag-storage S]\n"
    "         [--quiet]                   modules as ONNX local functions, identical\n"
    "                                     structures shared (docs/functions.md)\n"
    "  extract IN.onnx --module PATH -o OUT.onnx [--no-constants] [--tag-storage S]\n"
    "                                     one module and its descendants as a model\n"
    "  validate FILE.onnx [--json]        records, sidecar, module tree and checker\n"
    "                                     agree (exit 1 on any inconsistency)\n"
    "  compare A.onnx B.onnx [--json]     per-module differences (nodes, ops,\n"
    "                                     parameters) between two tagged files\n"
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
    {"hierarchy", modelexport::cli::cmd_hierarchy}, {"functions", modelexport::cli::cmd_functions},
    {"extract", modelexport::cli::cmd_extract},     {"validate", modelexport::cli::cmd_validate},
    {"compare", modelexport::cli::cmd_compare},
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
