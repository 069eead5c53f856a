// `modelexport extract IN.onnx --module PATH -o OUT.onnx
//  [--no-constants] [--tag-storage S]`: one module and its descendants as a
// standalone model.
#include <cstdio>
#include <memory>

#include "cli.hpp"
#include "command.hpp"
#include "save_summary.hpp"

namespace mx::cli {
namespace {

struct ExtractOptions {
  std::string input, out, module, tag_storage = "metadata";
  bool no_constants = false;
  CLI::Option* module_option = nullptr;
};

int run_extract(const ExtractOptions& o) {
  require_output(o.out, "OUT.onnx");
  // An empty PATH is the root module: given, it is a choice.
  if (o.module_option->count() == 0) throw UsageError("missing --module PATH");
  validate_tag_storage(o.tag_storage);
  const Model model = Model::load_file(o.input);
  const nlohmann::json options{{"include_constants", !o.no_constants}};
  const Model part = model.extract(o.module, options.dump());
  const auto graph = nlohmann::json::parse(part.graph_json());
  std::printf("module %s: %zu nodes, %zu inputs, %zu outputs, %zu initializers\n",
              o.module.empty() ? "(root)" : o.module.c_str(), graph["nodes"].size(), graph["inputs"].size(),
              graph["outputs"].size(), graph["initializers"].size());
  save_and_report(part, o.out, o.tag_storage);
  return 0;
}

}  // namespace

Command add_extract(CLI::App& parent) {
  auto o = std::make_shared<ExtractOptions>();
  CLI::App* app = add_command(parent, "extract", "write one module and its descendants as a standalone model",
                              "Values the module reads from outside become graph inputs; input-less\n"
                              "Constant nodes feeding it are copied in unless --no-constants.",
                              "modelexport extract model.onnx --module encoder.layer.0 -o layer0.onnx");
  add_positional(app, "IN.onnx", o->input, "a tagged ONNX file");
  add_output(app, o->out, "OUT.onnx", "the extracted model");
  o->module_option =
      app->add_option("--module", o->module, "module path, e.g. encoder.layer.0")->type_name("PATH");
  app->add_flag("--no-constants", o->no_constants,
                "Constant nodes from outside the module become inputs instead of being copied");
  add_tag_storage(app, o->tag_storage);
  return {app, [o] { return run_extract(*o); }};
}

}  // namespace mx::cli
