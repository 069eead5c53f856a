// `modelexport export MODEL -o OUT.onnx [--input SPEC ...] [--frontend NAME]`:
// a torch.export archive (.pt2, inputs optional) or a TorchScript file (.pt,
// inputs required) to ONNX with hierarchy; the frontend plugin is chosen by
// the file's content unless --frontend names one;
// `--external-data` puts the weights in OUT.onnx.data (automatic over 2 GB);
// `--functions [CLASS,...]` then applies the functions pass; progress on
// stderr when it is a terminal, unless --quiet.
#include "cli.hpp"
#include "functions_option.hpp"
#include "save_summary.hpp"

namespace modelexport::cli {

int cmd_export(const std::vector<std::string>& argv_in) {
  std::vector<std::string> argv = argv_in;
  std::vector<std::string> function_classes;
  const bool functions = take_functions_option(argv, function_classes);
  Args args(argv, {"--drop-builtin-tags", "--external-data", "--quiet", "-q"},
            {"-o", "--output", "--input", "--opset", "--tag-storage", "--frontend"});
  args.expect_positionals(1, "MODEL.pt2|MODEL.pt");
  const std::string out = args.value("-o", args.value("--output"));
  if (out.empty()) throw UsageError("missing -o OUT.onnx");
  const auto inputs = args.values("--input");
  nlohmann::json options{{"inputs", inputs},
                         {"drop_builtin_tags", args.flag("--drop-builtin-tags")}};
  // --external-data: weights in OUT.onnx.data whatever the size (without it,
  // only a model over protobuf's 2 GB limit gets external data).
  const bool external = args.flag("--external-data");
  if (external) options["external_data"] = true;
  if (const std::string opset = args.value("--opset"); !opset.empty()) {
    try {
      options["opset"] = std::stoi(opset);
    } catch (const std::exception&) {
      throw UsageError("--opset must be a number, not '" + opset + "'");
    }
  }
  const std::string storage = args.value("--tag-storage", "metadata");
  validate_tag_storage(storage);
  refuse_overwriting_source(args.positionals()[0], save_targets(out));
  ProgressBar progress("export", args.flag("--quiet") || args.flag("-q"));
  progress.stage("plugins");
  const auto registry = Registry::create();
  Model model = registry.export_model(args.value("--frontend", "auto"), args.positionals()[0], options.dump(),
                                      progress.listener());
  if (functions) apply_functions(model, function_classes, &progress);
  save_and_report(model, out, storage, true, external, &progress);
  return 0;
}

}  // namespace modelexport::cli
