// mx_registry_export / mx_registry_module_tree through a fake C frontend.
#include <cstdio>

#include "scoped_model.hpp"
#include "test_support.hpp"

using nlohmann::json;

TEST_CASE("export loads the frontend's ONNX bytes and stores its hierarchy") {
  mx_registry* r = registry_with(json{{"discover", false}, {"plugin_dirs", {MX_TEST_GOOD_DIR}}});
  mx_model* source = make_scoped_model();
  const std::string path = "test_frontend_model.onnx";
  REQUIRE_OK(mx_model_save_file(source, path.c_str(), "{\"sidecar\":false}"));
  mx_model_release(source);

  mx_model* out = nullptr;
  REQUIRE_OK(mx_registry_export(r, "fake", path.c_str(), "{\"inputs\":[\"x:float32[2,2]\"]}", &out));
  REQUIRE(out != nullptr);
  CHECK(mx_model_node_count(out) == 8);
  json doc = hierarchy_of(out);
  CHECK(doc["modules"][0]["class"] == "FakeNet");
  mx_model_release(out);

  SUBCASE("export options are strict") {
    CHECK(status_text(mx_registry_export(r, "fake", path.c_str(), "{}", &out)) ==
          "invalid_argument: export option \"inputs\" is required");
    CHECK(status_text(mx_registry_export(r, "fake", path.c_str(),
                                         "{\"inputs\":[\"x\"],\"opset\":99}", &out))
              .find("invalid_argument: \"opset\"") == 0);
    CHECK(status_text(mx_registry_export(r, "fake", "/nonexistent.pt", "{\"inputs\":[\"x\"]}", &out))
              .find("io: ") == 0);
    CHECK(status_text(mx_registry_export(r, "good", path.c_str(), "{\"inputs\":[\"x\"]}", &out)) ==
          "not_found: no frontend plugin named 'good' (available: fake)");
  }
  SUBCASE("module tree") {
    char* text = nullptr;
    size_t size = 0;
    REQUIRE_OK(mx_registry_module_tree(r, "fake", path.c_str(), &text, &size));
    CHECK(take_json(text, size)["modules"][0]["class"] == "FakeNet");
  }
  std::remove(path.c_str());
  mx_registry_release(r);
}
