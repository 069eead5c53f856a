// `modelexport extract IN.onnx --module PATH -o OUT.onnx
//  [--no-constants] [--tag-storage S]`: one module and its descendants as a
// standalone model.
#include <cstdio>

#include "cli.hpp"
#include "save_summary.hpp"

namespace modelexport::cli {

int cmd_extract(const std::vector<std::string>& argv) {
  Args args(argv, {"--no-constants"}, {"-o", "--output", "--module", "--tag-storage"});
  args.expect_positionals(1, "IN.onnx");
  const std::string out = args.value("-o", args.value("--output"));
  if (out.empty()) throw UsageError("missing -o OUT.onnx");
  if (args.values("--module").empty()) throw UsageError("missing --module PATH");
  const std::string module = args.value("--module");
  const std::string storage = args.value("--tag-storage", "metadata");
  validate_tag_storage(storage);
  const Model model = Model::load_file(args.positionals()[0]);
  const nlohmann::json options{{"include_constants", !args.flag("--no-constants")}};
  const Model part = model.extract(module, options.dump());
  const auto graph = nlohmann::json::parse(part.graph_json());
  std::printf("module %s: %zu nodes, %zu inputs, %zu outputs, %zu initializers\n",
              module.empty() ? "(root)" : module.c_str(), graph["nodes"].size(),
              graph["inputs"].size(), graph["outputs"].size(), graph["initializers"].size());
  save_and_report(part, out, storage);
  return 0;
}

}  // namespace modelexport::cli
