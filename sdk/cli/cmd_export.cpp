// `modelexport export MODEL -o OUT.onnx [--input SPEC ...] [--frontend NAME]`:
// a torch.export archive (.pt2, inputs optional) or a TorchScript file (.pt,
// inputs required) to ONNX with hierarchy; the frontend plugin is chosen by
// the file's content unless --frontend names one;
// the weights go to OUT.onnx.data when the model is over 1 MiB (what
// ONNX Runtime loads fastest; `--external-data`: whatever the size,
// `--no-external-data`: inline up to protobuf's 2 GB limit);
// `--functions [CLASS,...]` then applies the functions pass; progress on
// stderr when it is a terminal, unless --quiet.
#include <memory>

#include "cli.hpp"
#include "command.hpp"
#include "functions_option.hpp"
#include "save_summary.hpp"

namespace mx::cli {
namespace {

struct ExportOptions {
  std::string model, out, frontend = "auto", tag_storage = "metadata";
  std::vector<std::string> inputs, functions;
  int opset = 0;
  bool drop_builtin_tags = false, external_data = false, no_external_data = false, quiet = false, no_fused_ops = false,
       no_fold_batch_norms = false, upcast_bf16 = false, no_state_outputs = false;
  CLI::Option* functions_option = nullptr;
  CLI::Option* opset_option = nullptr;
};

// ONNX Runtime creates a session 1.3-1.8x slower for a model whose weights
// are inline than for the same model with them as external data (it
// parses and copies every inline tensor; an external one it reads from
// the data file): measured from 1 MiB to 340 MB of weights
// (docs/lean-graphs.md, "Inline weights and session creation"). So an
// exported model over 1 MiB is saved with external data, as
// torch.onnx.export saves every model; a smaller one stays one file.
constexpr uint64_t kExternalDataOver = uint64_t{1} << 20;

nlohmann::json weights_file(const ExportOptions& o) {
  if (o.external_data) return {{"external_data", true}};
  if (o.no_external_data) return {{"external_data", false}};
  return {{"external_data_over", kExternalDataOver}};
}

int run_export(ExportOptions& o) {
  const bool functions = o.functions_option->count() > 0;
  // `--functions MODEL.pt2 -o ...`: the optional class list took the model.
  if (functions && o.model.empty() && !o.functions.empty() && looks_like_file(o.functions.back())) {
    o.model = o.functions.back();
    o.functions.pop_back();
  }
  if (o.model.empty()) throw UsageError("missing MODEL.pt2|MODEL.pt");
  require_output(o.out, "OUT.onnx");
  std::vector<std::string> function_classes;
  for (const auto& list : o.functions)
    for (auto& c : split_commas(list)) function_classes.push_back(c);
  if (o.external_data && o.no_external_data) throw UsageError("--external-data and --no-external-data contradict");
  nlohmann::json options{{"inputs", o.inputs}, {"drop_builtin_tags", o.drop_builtin_tags}};
  // --external-data: weights in OUT.onnx.data whatever the size (without it,
  // the frontend writes external data itself only past protobuf's 2 GB
  // limit; the save below decides for smaller models).
  if (o.external_data) options["external_data"] = true;
  if (o.no_external_data) options["external_data"] = false;
  if (o.opset_option->count() > 0) options["opset"] = o.opset;
  if (o.no_fused_ops) options["fused_ops"] = false;
  if (o.no_fold_batch_norms) options["fold_batch_norms"] = false;
  if (o.upcast_bf16) options["upcast_bf16"] = true;
  if (o.no_state_outputs) options["state_outputs"] = false;
  validate_tag_storage(o.tag_storage);
  refuse_overwriting_source(o.model, save_targets(o.out));
  ProgressBar progress("export", o.quiet);
  progress.stage("plugins");
  const auto registry = Registry::create();
  Model model = registry.export_model(o.frontend, o.model, options.dump(), progress.listener());
  if (functions) apply_functions(model, function_classes, &progress);
  save_and_report(model, o.out, o.tag_storage, true, weights_file(o), &progress);
  return 0;
}

}  // namespace

Command add_export(CLI::App& parent) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* app =
      add_command(parent, "export", "export a .pt2 or TorchScript model to ONNX with its module hierarchy",
                  "A torch.export archive (.pt2) knows its inputs: --input is optional and\n"
                  "overrides sizes or names dynamic dimensions. A TorchScript file (.pt)\n"
                  "needs one --input per model input.\n"
                  "input SPEC: name:dtype[dims], e.g. input_ids:int64[batch=2,seq=16]\n"
                  "(a named dimension is dynamic, a number is static).",
                  "modelexport export model.pt2 -o model.onnx --input x:float32[batch=1,3,224,224]");
  // Not add_positional's required(): `--functions MODEL` is resolved first.
  app->add_option("MODEL", o->model, "the model: a torch.export archive (.pt2) or TorchScript (.pt)")
      ->type_name("");
  add_output(app, o->out, "OUT.onnx", "the ONNX file to write (and OUT.hierarchy.json next to it)");
  app->add_option("--input", o->inputs, "an input SPEC (repeat for several inputs)")
      ->type_name("SPEC")
      ->allow_extra_args(false);
  app->add_option("--frontend", o->frontend, "frontend plugin (default: chosen by the file's content)")
      ->type_name("NAME");
  o->opset_option = app->add_option("--opset", o->opset, "ONNX opset of the output, 14..28 (default 20)")
                        ->type_name("N")
                        ->check(whole_number());
  app->add_flag("--no-fused-ops", o->no_fused_ops,
                "decompose Gelu (opset 20+), GroupNormalization (21+), Attention and\n"
                "RMSNormalization (23+) for runtimes without those ops");
  app->add_flag("--no-fold-batch-norms", o->no_fold_batch_norms,
                "keep BatchNormalization after Conv as a node with its parameters\n"
                "(default: folded into the Conv's weight and bias, .pt2 only)");
  app->add_flag("--upcast-bf16", o->upcast_bf16,
                "compute bf16 ops in float32, rounding each result to bf16, for\n"
                "runtimes without bf16 kernels (ONNX Runtime's CPU provider); .pt2 only");
  app->add_flag("--no-state-outputs", o->no_state_outputs,
                "keep state the program writes (a KV cache buffer) as an initializer\n"
                "and drop its <name>.updated outputs: the writes are lost; .pt2 only");
  add_tag_storage(app, o->tag_storage);
  app->add_flag("--drop-builtin-tags", o->drop_builtin_tags, "omit torch.nn built-in modules from the tags");
  o->functions_option = app->add_option("--functions", o->functions,
                                        "then modules as ONNX local functions (see 'functions --help')")
                            ->type_name("[CLASS,...]")
                            ->expected(0, 1)
                            ->allow_extra_args(false)
                            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app->add_flag("--external-data", o->external_data,
                "weights in OUT.onnx.data whatever the size (default: when the model is over 1 MiB)");
  app->add_flag("--no-external-data", o->no_external_data,
                "weights inline in OUT.onnx up to protobuf's 2 GB limit");
  add_quiet(app, o->quiet);
  return {app, [o] { return run_export(*o); }};
}

}  // namespace mx::cli
