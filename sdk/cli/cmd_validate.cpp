// `modelexport validate FILE.onnx [--json]`: records on every node, records
// / sidecar / module tree in agreement, ONNX checker. Lists every
// inconsistency; exit 1 when there is any.
#include <cstdio>
#include <iostream>

#include "cli.hpp"
#include "modelexport/modelexport.hpp"

namespace modelexport::cli {

int cmd_validate(const std::vector<std::string>& argv) {
  Args args(argv, {"--json"}, {});
  args.expect_positionals(1, "FILE.onnx");
  const auto report = nlohmann::json::parse(validate_file(args.positionals()[0]));
  const bool ok = report["ok"].get<bool>();
  if (args.flag("--json")) {
    std::cout << report.dump(2) << "\n";
    return ok ? 0 : 1;
  }
  const auto& c = report["checked"];
  std::printf("%s: %zu nodes, %zu function nodes, %zu modules, sidecar %s, checker %s\n",
              report["file"].get<std::string>().c_str(), c["nodes"].get<size_t>(),
              c["function_nodes"].get<size_t>(), c["modules"].get<size_t>(),
              c["sidecar"].is_null() ? "none" : c["sidecar"].get<std::string>().c_str(),
              c["checker"].get<bool>() ? "ok" : "FAILED");
  for (const auto& issue : report["issues"])
    std::printf("  [%s] %s\n", issue["kind"].get<std::string>().c_str(),
                issue["message"].get<std::string>().c_str());
  std::printf("%s: %zu issue(s)\n", ok ? "valid" : "INVALID", report["issues"].size());
  return ok ? 0 : 1;
}

}  // namespace modelexport::cli
