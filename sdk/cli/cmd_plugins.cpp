// `modelexport plugins [--json]`: what the registry found, and why it
// refused what it refused.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "command.hpp"
#include "modelexport/modelexport.hpp"

namespace mx::cli {
namespace {
std::string field(const nlohmann::json& p, const char* key) {
  return p.contains(key) && p[key].is_string() ? p[key].get<std::string>() : "-";
}

int run_plugins(bool json) {
  const auto registry = Registry::create();
  const auto listing = nlohmann::json::parse(registry.plugins_json());
  if (json) {
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

}  // namespace

Command add_plugins(CLI::App& parent) {
  auto json = std::make_shared<bool>(false);
  CLI::App* app = add_command(parent, "plugins", "list the plugins found, and why any was refused",
                              "Plugins are found in the install's plugin directory and in the\n"
                              "directories of MODELEXPORT_PLUGIN_PATH (colon-separated).",
                              "modelexport plugins --json");
  app->add_flag("--json", *json, "the listing as JSON");
  return {app, [json] { return run_plugins(*json); }};
}

}  // namespace mx::cli
