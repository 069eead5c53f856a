// Every kind of bad plugin is refused with a clear reason, listed, and the
// registry keeps working afterwards.
#include <memory>

#include "scoped_model.hpp"
#include "test_support.hpp"

using nlohmann::json;

namespace {

// Real plugins first so the duplicate "scope" is the one refused.
mx_registry* registry_with_bad_plugins() {
  return registry_with(nlohmann::json{
      {"discover", false}, {"plugin_dirs", {MX_TEST_PLUGIN_DIR, MX_TEST_BAD_DIR, MX_TEST_GOOD_DIR}}});
}

std::string reason_for(const json& listing, const std::string& file) {
  json e = entry_for(listing, file);
  REQUIRE_MESSAGE(!e.is_null(), file << " missing from " << listing.dump(1));
  CHECK(e["status"] == "refused");
  return e.value("reason", "");
}

}  // namespace

TEST_CASE("each refusal is listed with its reason") {
  mx_registry* r = registry_with_bad_plugins();
  json listing = plugins_listing(r);
  CHECK(reason_for(listing, "libmx_test_wrong_major.so") ==
        "built against plugin ABI 2.0, host supports 1.x");
  CHECK(reason_for(listing, "libmx_test_newer_minor.so") ==
        "built against plugin ABI 1.5, newer than host 1.2");
  CHECK(reason_for(listing, "libmx_test_no_entry.so") == "no entry point 'modelexport_plugin_entry'");
  CHECK(reason_for(listing, "libmx_test_create_fails.so") == "create() failed: no GPU found");
  CHECK(reason_for(listing, "/bad.so").rfind("not a loadable shared library: ", 0) == 0);
  CHECK(reason_for(listing, "libmx_test_duplicate_scope.so") ==
        "a plugin named 'scope' is already registered from " + kScopePlugin);
  for (const char* loaded : {"libmodelexport_strategy_scope.so", "libmx_test_failing.so",
                             "libmx_test_malformed_json.so", "libmx_test_good.so"}) {
    json e = entry_for(listing, loaded);
    CHECK_MESSAGE(e.value("status", "") == "loaded", loaded);
  }
  json scope = entry_for(listing, "libmodelexport_strategy_scope.so");
  CHECK(scope["name"] == "scope");
  CHECK(scope["kind"] == "strategy");
  CHECK(scope["abi"] == "1.2");
  CHECK(scope["graph_reader"] == true);
  CHECK(entry_for(listing, "libmx_test_good.so")["graph_reader"] == false);  // a 1.0 plugin
  mx_registry_release(r);
}

TEST_CASE("explicit loading returns the refusal as MX_ERR_PLUGIN") {
  mx_registry* r = registry_with(nlohmann::json{{"discover", false}});
  std::string text = status_text(mx_registry_load_plugin(r, MX_TEST_BAD_DIR "/libmx_test_wrong_major.so"));
  CHECK(text.find("plugin: ") == 0);
  CHECK(text.find("built against plugin ABI 2.0, host supports 1.x") != std::string::npos);
  text = status_text(mx_registry_load_plugin(r, "/nonexistent/libnothing.so"));
  CHECK(text.find("not a loadable shared library: ") != std::string::npos);
  CHECK(plugins_listing(r)["plugins"].size() == 2);
  SUBCASE("loading the same file twice is not a conflict") {
    REQUIRE_OK(mx_registry_load_plugin(r, kScopePlugin.c_str()));
    REQUIRE_OK(mx_registry_load_plugin(r, kScopePlugin.c_str()));
    CHECK(plugins_listing(r)["plugins"].size() == 3);
  }
  mx_registry_release(r);
}

TEST_CASE("plugins that fail keep their error kind, bad answers give MX_ERR_PLUGIN; the host keeps working") {
  mx_registry* r = registry_with_bad_plugins();
  mx_model* m = make_scoped_model();
  CHECK(status_text(mx_registry_tag(r, "failing", m, nullptr)) ==
        "unsupported: plugin 'failing' failed: the model is too interesting");
  std::string text = status_text(mx_registry_tag(r, "malformed-json", m, nullptr));
  CHECK(text.find("plugin: plugin 'malformed-json' answered malformed JSON: ") == 0);
  text = status_text(mx_registry_tag(r, "out-of-range", m, nullptr));
  CHECK(text.find("plugin 'out-of-range' answered badly: assignments[0]: node 100000 is out of range") !=
        std::string::npos);
  // A graph reader (ABI 1.2) answering node 0 twice through the host's sink:
  // the refusal is reported, not the code the plugin returned.
  CHECK(status_text(mx_registry_tag(r, "reader-bad-answers", m, nullptr)) ==
        "plugin: plugin 'reader-bad-answers' answered badly: node 0 assigned twice");
  // A 1.1 plugin with bit 2 set gets the JSON request (its bit meant nothing).
  REQUIRE_OK(mx_registry_tag(r, "old-flag-bit", m, nullptr));
  text = status_text(mx_registry_tag(r, "nope", m, nullptr));
  CHECK(text.find("not_found: no strategy plugin named 'nope' (available: ") == 0);
  CHECK(text.find("scope") != std::string::npos);
  REQUIRE_OK(mx_registry_tag(r, "scope", m, nullptr));
  mx_model_release(m);
  mx_registry_release(r);
}

TEST_CASE("argument and option errors") {
  mx_registry* r = nullptr;
  CHECK(status_text(mx_registry_create("{\"plugin_dir\":[]}", &r)) ==
        "invalid_argument: unknown registry option 'plugin_dir'");
  CHECK(r == nullptr);
  CHECK(status_text(mx_registry_create("{", &r)).find("invalid_argument: ") == 0);
  CHECK(status_text(mx_registry_create("{\"discover\":1}", &r)).find("invalid_argument") == 0);
  CHECK(status_text(mx_registry_create(nullptr, nullptr)).find("invalid_argument") == 0);
  mx_registry_release(nullptr);
  CHECK(status_text(mx_registry_plugins_json(nullptr, nullptr, nullptr)).find("invalid_argument") == 0);

  r = registry_with(nlohmann::json{{"discover", false}, {"plugin_dirs", {MX_TEST_PLUGIN_DIR}}});
  mx_model* m = make_scoped_model();
  CHECK(status_text(mx_registry_tag(r, "scope", m, "{\"strategy\":1}")) ==
        "invalid_argument: unknown tag option 'strategy'");
  CHECK(status_text(mx_registry_tag(r, "scope", m, "{\"hierarchy\":\"/nonexistent.json\"}")).find("io: ") ==
        0);
  mx_model* out = reinterpret_cast<mx_model*>(0x1);
  std::string text = status_text(mx_registry_export(r, "nope", "/dev/null", "{}", &out));
  CHECK(text.find("not_found: no frontend plugin named 'nope' (available: ") == 0);
  CHECK(out == nullptr);
  char* json_out = nullptr;
  text = status_text(mx_registry_module_tree(r, "scope", "/dev/null", &json_out, nullptr));
  CHECK(text.find("not_found: no frontend plugin named 'scope'") == 0);
  mx_model_release(m);
  mx_registry_release(r);
}
