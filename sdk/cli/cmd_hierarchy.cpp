// `modelexport hierarchy MODEL.pt -o H.json`: the module tree of a
// TorchScript model, as a hierarchy document without node records.
#include <cstdio>
#include <memory>

#include "cli.hpp"
#include "command.hpp"
#include "modelexport/modelexport.hpp"

namespace mx::cli {
namespace {

struct HierarchyOptions {
  std::string model, out;
};

int run_hierarchy(const HierarchyOptions& o) {
  require_output(o.out, "H.json");
  refuse_overwriting_source(o.model, {o.out});
  const auto registry = Registry::create();
  const auto tree = nlohmann::json::parse(registry.module_tree("auto", o.model));
  write_text_atomically(o.out, tree.dump(2) + "\n");
  std::printf("wrote %s: %zu modules\n", o.out.c_str(),
              tree.value("modules", nlohmann::json::array()).size());
  return 0;
}

}  // namespace

Command add_hierarchy(CLI::App& parent) {
  auto o = std::make_shared<HierarchyOptions>();
  CLI::App* app =
      add_command(parent, "hierarchy", "write the module tree of a .pt2 or TorchScript model as JSON",
                  "The tree (modules and classes, no node records) can be handed to\n"
                  "'modelexport tag --hierarchy' for an ONNX file exported from the same model.",
                  "modelexport hierarchy model.pt -o model.hierarchy.json");
  add_positional(app, "MODEL", o->model, "a torch.export archive (.pt2) or TorchScript file (.pt)");
  add_output(app, o->out, "H.json", "the hierarchy document to write");
  return {app, [o] { return run_hierarchy(*o); }};
}

}  // namespace mx::cli
