// Discovery through MODELEXPORT_PLUGIN_PATH and the install directory.
#include <algorithm>
#include <cstdlib>

#include "test_support.hpp"

using nlohmann::json;

TEST_CASE("MODELEXPORT_PLUGIN_PATH directories are scanned in order") {
  std::string path = std::string("/nonexistent/dir::") + MX_TEST_GOOD_DIR;
  setenv("MODELEXPORT_PLUGIN_PATH", path.c_str(), 1);
  mx_registry* r = nullptr;
  REQUIRE_OK(mx_registry_create(nullptr, &r));
  unsetenv("MODELEXPORT_PLUGIN_PATH");
  json listing = plugins_listing(r);
  json dirs = listing["plugin_dirs"];
  REQUIRE(dirs.size() >= 3);  // install dir, then the two non-empty entries
  CHECK(dirs[1] == "/nonexistent/dir");
  CHECK(dirs[2] == MX_TEST_GOOD_DIR);
  CHECK(std::string(dirs[0]).find("modelexport/plugins") != std::string::npos);
  json good = entry_for(listing, "libmx_test_good.so");
  CHECK(good.value("status", "") == "loaded");
  CHECK(good["name"] == "good");
  CHECK(good["thread_safe"] == false);
  mx_registry_release(r);
}

TEST_CASE("discover=false ignores MODELEXPORT_PLUGIN_PATH") {
  setenv("MODELEXPORT_PLUGIN_PATH", MX_TEST_GOOD_DIR, 1);
  mx_registry* r = registry_with(nlohmann::json{{"discover", false}});
  unsetenv("MODELEXPORT_PLUGIN_PATH");
  json listing = plugins_listing(r);
  CHECK(listing["plugin_dirs"].empty());
  CHECK(listing["plugins"].empty());
  mx_registry_release(r);
}

TEST_CASE("only *.so files are scanned, in sorted order") {
  mx_registry* r = registry_with(nlohmann::json{{"discover", false}, {"plugin_dirs", {MX_TEST_BAD_DIR}}});
  json listing = plugins_listing(r);
  std::vector<std::string> paths;
  for (const auto& e : listing["plugins"]) paths.push_back(e["path"]);
  CHECK(std::is_sorted(paths.begin(), paths.end()));
  for (const auto& p : paths) CHECK(p.substr(p.size() - 3) == ".so");
  mx_registry_release(r);
}
