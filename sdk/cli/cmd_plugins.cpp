// `modelexport plugins [--json]`: what the registry found, and why it
// refused what it refused.
#include <cstdio>
#include <iostream>

#include "cli.hpp"
#include "modelexport/modelexport.hpp"

namespace modelexport::cli {
namespace {
std::string field(const nlohmann::json& p, const char* key) {
  return p.contains(key) && p[key].is_string() ? p[key].get<std::string>() : "-";
}
}  // namespace

int cmd_plugins(const std::vector<std::string>& argv) {
  Args args(argv, {"--json"}, {});
  args.expect_positionals(0, "");
  const auto registry = Registry::create();
  const auto listing = nlohmann::json::parse(registry.plugins_json());
  if (args.flag("--json")) {
    std::cout << listing.dump(2) << "\n";
    return 0;
  }
  std::printf("%-16s %-9s %-9s %-8s %s\n", "NAME", "KIND", "VERSION", "STATUS", "REASON / PATH");
  for (const auto& p : listing.value("plugins", nlohmann::json::array())) {
    const std::string status = field(p, "status");
    const std::string detail = status == "loaded" ? field(p, "path") : field(p, "reason");
    std::printf("%-16s %-9s %-9s %-8s %s\n", field(p, "name").c_str(), field(p, "kind").c_str(),
                field(p, "version").c_str(), status.c_str(), detail.c_str());
  }
  for (const auto& dir : listing.value("plugin_dirs", nlohmann::json::array()))
    std::printf("searched: %s\n", dir.get<std::string>().c_str());
  return 0;
}

}  // namespace modelexport::cli
