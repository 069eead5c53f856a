// `modelexport tag IN.onnx -o OUT.onnx [--strategy NAME]`: recover the
// hierarchy of an ONNX file exported elsewhere; progress on stderr when it
// is a terminal, unless --quiet.
#include <cstdio>
#include <memory>

#include "cli.hpp"
#include "command.hpp"
#include "save_summary.hpp"

namespace mx::cli {
namespace {

// The command ends here and the process with it: freeing the model node by
// node is work no output needs (the exit returns the memory at once). The
// handle stays reachable, so leak checkers do not count it.
void leave_to_exit(Model&& model) {
  static mx_model* kept = nullptr;
  kept = model.release();
}

struct TagOptions {
  std::string input, out, strategy = "auto", hierarchy, tag_storage = "metadata";
  bool quiet = false, check = false;
};

int run_tag(const TagOptions& o) {
  require_output(o.out, "OUT.onnx");
  validate_tag_storage(o.tag_storage);
  nlohmann::json options = nlohmann::json::object();
  if (!o.hierarchy.empty()) options["hierarchy"] = o.hierarchy;
  ProgressBar progress("tag", o.quiet);
  // Load first: a missing or broken input is reported before plugin discovery.
  progress.stage("load");
  Model model = Model::load_file(o.input);
  // Tagging only adds metadata (node metadata_props, doc_strings, model
  // metadata_props), which the ONNX checker does not read: the graph written
  // is the graph read, so its checker verdict is the input's. The checker
  // and shape inference run on the input only with --check (to warn; at
  // 200,000 nodes they cost several times the tagging). The SDK's own
  // structure check (a DAG, every input defined, one writer per value)
  // always runs, in the tagger.
  if (o.check) {
    progress.stage("check");
    const Status input_check(mx_model_check(model.get()));
    progress.clear();
    if (!input_check.ok())
      std::fprintf(stderr,
                   "modelexport: warning: input does not pass the ONNX checker; "
                   "saving without checking (%s)\n",
                   input_check.message().c_str());
  }
  progress.stage("plugins");
  const auto registry = Registry::create();
  registry.tag(o.strategy, model, options.dump(), progress.listener());
  save_and_report(model, o.out, o.tag_storage, /*check=*/false, {}, &progress);
  leave_to_exit(std::move(model));
  return 0;
}

}  // namespace

Command add_tag(CLI::App& parent) {
  auto o = std::make_shared<TagOptions>();
  CLI::App* app = add_command(parent, "tag", "recover the module hierarchy of any ONNX file",
                              "Strategies read the evidence the file holds (scoped node names, dynamo\n"
                              "metadata, parameter names); 'modelexport plugins' lists them.",
                              "modelexport tag model.onnx -o model.tagged.onnx --strategy scope");
  add_positional(app, "IN.onnx", o->input, "the ONNX file to tag");
  add_output(app, o->out, "OUT.onnx", "the tagged ONNX file (and OUT.hierarchy.json next to it)");
  app->add_option("--strategy", o->strategy, "strategy plugin (default auto: the best that applies)")
      ->type_name("NAME");
  app->add_option("--hierarchy", o->hierarchy,
                  "a module tree (from 'modelexport hierarchy') supplying class names")
      ->type_name("H.json");
  app->add_flag("--check", o->check,
                "run the ONNX checker on the input first and warn if it fails (the graph\n"
                "written is the graph read: 'modelexport validate' checks either)");
  add_tag_storage(app, o->tag_storage);
  add_quiet(app, o->quiet);
  return {app, [o] { return run_tag(*o); }};
}

}  // namespace mx::cli
