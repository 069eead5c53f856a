// `modelexport tag IN.onnx -o OUT.onnx [--strategy NAME]`: recover the
// hierarchy of an ONNX file exported elsewhere; progress on stderr when it
// is a terminal, unless --quiet.
#include <cstdio>

#include "cli.hpp"
#include "save_summary.hpp"

namespace modelexport::cli {

int cmd_tag(const std::vector<std::string>& argv) {
  Args args(argv, {"--quiet", "-q"}, {"-o", "--output", "--strategy", "--hierarchy", "--tag-storage"});
  args.expect_positionals(1, "IN.onnx");
  const std::string out = args.value("-o", args.value("--output"));
  if (out.empty()) throw UsageError("missing -o OUT.onnx");
  const std::string storage = args.value("--tag-storage", "metadata");
  validate_tag_storage(storage);
  nlohmann::json options = nlohmann::json::object();
  if (const std::string h = args.value("--hierarchy"); !h.empty()) options["hierarchy"] = h;
  ProgressBar progress("tag", args.flag("--quiet") || args.flag("-q"));
  // Load first: a missing or broken input is reported before plugin discovery.
  progress.stage("load");
  Model model = Model::load_file(args.positionals()[0]);
  progress.stage("check");
  // Tagging only adds metadata (node metadata_props, doc_strings, model
  // metadata_props), which the checker does not read: the input is checked
  // once, to warn, and the output is not checked again (at 200,000 nodes
  // each libonnx check + shape inference is ~4 s). A file the bundled
  // libonnx 1.12 checker cannot judge (IR 10, opset > 17 from newer
  // exporters) is still taggable.
  const Status input_check(mx_model_check(model.get()));
  progress.clear();
  if (!input_check.ok())
    std::fprintf(stderr, "modelexport: warning: input does not pass the ONNX checker; "
                         "saving without checking (%s)\n", input_check.message().c_str());
  progress.stage("plugins");
  const auto registry = Registry::create();
  registry.tag(args.value("--strategy", "auto"), model, options.dump(), progress.listener());
  save_and_report(model, out, storage, /*check=*/false, false, &progress);
  return 0;
}

}  // namespace modelexport::cli
