// `modelexport functions IN.onnx -o OUT.onnx [--classes CLASS,...]
//  [--tag-storage S]`: module instances become ONNX local functions, shared
// between structurally identical instances (docs/functions.md); progress on
// stderr when it is a terminal, unless --quiet.
#include <memory>

#include "cli.hpp"
#include "command.hpp"
#include "functions_option.hpp"
#include "save_summary.hpp"

namespace mx::cli {
namespace {

struct FunctionsOptions {
  std::string input, out, tag_storage = "metadata";
  std::vector<std::string> classes;
  bool quiet = false;
};

int run_functions(const FunctionsOptions& o) {
  require_output(o.out, "OUT.onnx");
  validate_tag_storage(o.tag_storage);
  std::vector<std::string> classes;
  for (const auto& v : o.classes)
    for (auto& c : split_commas(v)) classes.push_back(c);
  ProgressBar progress("functions", o.quiet);
  progress.stage("load");
  Model model = Model::load_file(o.input);
  progress.clear();
  if (!model.has_hierarchy())
    throw Error(MX_ERR_UNSUPPORTED, o.input + ": carries no hierarchy records; run 'modelexport tag' first");
  apply_functions(model, classes, &progress);
  save_and_report(model, o.out, o.tag_storage, true, {}, &progress);
  return 0;
}

}  // namespace

Command add_functions(CLI::App& parent) {
  auto o = std::make_shared<FunctionsOptions>();
  CLI::App* app =
      add_command(parent, "functions", "turn modules into ONNX local functions, identical structures shared",
                  "The input must carry hierarchy records (from 'export' or 'tag');\n"
                  "docs/functions.md describes which instances share a function.",
                  "modelexport functions model.onnx -o model.functions.onnx --classes BertLayer");
  add_positional(app, "IN.onnx", o->input, "a tagged ONNX file");
  add_output(app, o->out, "OUT.onnx", "the ONNX file with local functions");
  app->add_option("--classes", o->classes,
                  "only modules of these classes (comma-separated, may repeat; default: every executed "
                  "module but the root and torch.nn built-ins)")
      ->type_name("CLASS,...")
      ->allow_extra_args(false);
  add_tag_storage(app, o->tag_storage);
  add_quiet(app, o->quiet);
  return {app, [o] { return run_functions(*o); }};
}

}  // namespace mx::cli
