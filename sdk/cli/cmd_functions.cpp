// `modelexport functions IN.onnx -o OUT.onnx [--classes CLASS,...]
//  [--tag-storage S]`: module instances become ONNX local functions, shared
// between structurally identical instances (docs/functions.md); progress on
// stderr when it is a terminal, unless --quiet.
#include "cli.hpp"
#include "functions_option.hpp"
#include "save_summary.hpp"

namespace modelexport::cli {

int cmd_functions(const std::vector<std::string>& argv) {
  Args args(argv, {"--quiet", "-q"}, {"-o", "--output", "--classes", "--tag-storage"});
  args.expect_positionals(1, "IN.onnx");
  const std::string out = args.value("-o", args.value("--output"));
  if (out.empty()) throw UsageError("missing -o OUT.onnx");
  const std::string storage = args.value("--tag-storage", "metadata");
  validate_tag_storage(storage);
  std::vector<std::string> classes;
  for (const auto& v : args.values("--classes"))
    for (auto& c : split_commas(v)) classes.push_back(c);
  ProgressBar progress("functions", args.flag("--quiet") || args.flag("-q"));
  progress.stage("load");
  Model model = Model::load_file(args.positionals()[0]);
  progress.clear();
  if (!model.has_hierarchy())
    throw Error(MX_ERR_UNSUPPORTED, args.positionals()[0] +
                                        ": carries no hierarchy records; run 'modelexport tag' first");
  apply_functions(model, classes, &progress);
  save_and_report(model, out, storage, true, false, &progress);
  return 0;
}

}  // namespace modelexport::cli
