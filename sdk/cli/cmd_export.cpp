// `modelexport export MODEL.pt -o OUT.onnx --input SPEC ...`: TorchScript to
// ONNX with hierarchy, through the "torchscript" frontend plugin;
// `--external-data` puts the weights in OUT.onnx.data (automatic over 2 GB);
// `--functions [CLASS,...]` then applies the functions pass.
#include "cli.hpp"
#include "functions_option.hpp"
#include "save_summary.hpp"

namespace modelexport::cli {

int cmd_export(const std::vector<std::string>& argv_in) {
  std::vector<std::string> argv = argv_in;
  std::vector<std::string> function_classes;
  const bool functions = take_functions_option(argv, function_classes);
  Args args(argv, {"--drop-builtin-tags", "--external-data"},
            {"-o", "--output", "--input", "--opset", "--tag-storage"});
  args.expect_positionals(1, "MODEL.pt");
  const std::string out = args.value("-o", args.value("--output"));
  if (out.empty()) throw UsageError("missing -o OUT.onnx");
  const auto inputs = args.values("--input");
  if (inputs.empty()) throw UsageError("at least one --input SPEC is required (e.g. x:float32[batch=1,3])");
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
  const auto registry = Registry::create();
  Model model = registry.export_model("torchscript", args.positionals()[0], options.dump());
  if (functions) apply_functions(model, function_classes);
  save_and_report(model, out, storage, true, external);
  return 0;
}

}  // namespace modelexport::cli
