// `modelexport validate FILE.onnx [--json]`: records on every node, records
// / sidecar / module tree in agreement, ONNX checker. Lists every
// inconsistency; exit 1 when there is any.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "command.hpp"
#include "modelexport/modelexport.hpp"

namespace mx::cli {

namespace {

struct ValidateOptions {
  std::string path;
  bool json = false;
};

int run_validate(const ValidateOptions& o) {
  const auto report = nlohmann::json::parse(validate_file(o.path));
  const bool ok = report["ok"].get<bool>();
  if (o.json) {
    std::cout << report.dump(2) << "\n";
    return ok ? 0 : 1;
  }
  const auto& c = report["checked"];
  std::printf("%s: %zu nodes, %zu function nodes, %zu modules, sidecar %s, checker %s\n",
              report["file"].get<std::string>().c_str(), c["nodes"].get<size_t>(),
              c["function_nodes"].get<size_t>(), c["modules"].get<size_t>(),
              c["sidecar"].is_null() ? "none" : c["sidecar"].get<std::string>().c_str(),
              c["checker"].is_null()     ? "not run"
              : c["checker"].get<bool>() ? "ok"
                                         : "FAILED");
  if (report.contains("checker_skipped"))
    std::printf("  note: checker not run: %s\n", report["checker_skipped"].get<std::string>().c_str());
  for (const auto& issue : report["issues"])
    std::printf("  [%s] %s\n", issue["kind"].get<std::string>().c_str(),
                issue["message"].get<std::string>().c_str());
  std::printf("%s: %zu issue(s)\n", ok ? "valid" : "INVALID", report["issues"].size());
  return ok ? 0 : 1;
}

}  // namespace

Command add_validate(CLI::App& parent) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* app =
      add_command(parent, "validate", "check that records, sidecar, module tree and the ONNX checker agree",
                  "Lists every inconsistency; exits with 1 when there is any, 0 otherwise.",
                  "modelexport validate model.onnx --json");
  add_positional(app, "FILE.onnx", o->path, "the ONNX file to validate");
  app->add_flag("--json", o->json, "the report as JSON");
  return {app, [o] { return run_validate(*o); }};
}

}  // namespace mx::cli
