// `modelexport hierarchy MODEL.pt -o H.json`: the module tree of a
// TorchScript model, as a hierarchy document without node records.
#include <cstdio>

#include "cli.hpp"
#include "modelexport/modelexport.hpp"

namespace modelexport::cli {

int cmd_hierarchy(const std::vector<std::string>& argv) {
  Args args(argv, {}, {"-o", "--output"});
  args.expect_positionals(1, "MODEL.pt");
  const std::string out = args.value("-o", args.value("--output"));
  if (out.empty()) throw UsageError("missing -o H.json");
  refuse_overwriting_source(args.positionals()[0], {out});
  const auto registry = Registry::create();
  const auto tree = nlohmann::json::parse(registry.module_tree("auto", args.positionals()[0]));
  write_text_atomically(out, tree.dump(2) + "\n");
  std::printf("wrote %s: %zu modules\n", out.c_str(), tree.value("modules", nlohmann::json::array()).size());
  return 0;
}

}  // namespace modelexport::cli
