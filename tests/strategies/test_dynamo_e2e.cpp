// End to end through the C API (the same path `modelexport tag` takes): the
// real host loads the real plugins from the build's plugin directory, tags
// the committed dynamo-exporter fixtures, and every node that carries
// `pkg.torch.onnx.name_scopes` must be assigned exactly the module those
// scopes name (ground truth decoded by Python's ast in make_fixtures.py).
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "require_ok.hpp"

using nlohmann::json;

namespace {

json read_json(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), path);
  return json::parse(in);
}

mx_registry* plugin_registry() {
  mx_registry* registry = nullptr;
  std::string options = json{{"discover", false}, {"plugin_dirs", {MX_TEST_PLUGIN_DIR}}}.dump();
  ok(mx_registry_create(options.c_str(), &registry));
  return registry;
}

json tag(mx_registry* registry, const std::string& strategy, const std::string& file) {
  mx_model* model = nullptr;
  ok(mx_model_load_file(file.c_str(), &model));
  ok(mx_registry_tag(registry, strategy.c_str(), model, "{}"));
  char* text = nullptr;
  size_t size = 0;
  ok(mx_model_hierarchy_json(model, &text, &size));
  json document = json::parse(std::string(text, size));
  mx_free(text);
  mx_model_release(model);
  return document;
}

void check_fixture(mx_registry* registry, const std::string& name) {
  std::string dir = MX_TEST_DYNAMO_DIR;
  json expected = read_json(dir + "/" + name + ".expected.json");
  json document = tag(registry, "metadata", dir + "/" + name + ".onnx");
  const json& nodes = document.at("nodes");
  REQUIRE(nodes.size() == expected.at("nodes").size());
  size_t checked = 0;
  for (const auto& want : expected.at("nodes")) {
    if (want.at("module").is_null()) continue;
    const json& got = nodes.at(want.at("index").get<size_t>());
    CAPTURE(want.at("name").get<std::string>());
    CHECK(got.at("module") == want.at("module"));
    CHECK(got.at("evidence") == "metadata");
    ++checked;
  }
  CHECK(checked > 0);
  MESSAGE(name << ": " << checked << " of " << nodes.size() << " nodes carry name_scopes; all matched");
}

std::map<std::string, std::string> classes_of(const json& document) {
  std::map<std::string, std::string> out;
  for (const auto& m : document.at("modules")) out[m.at("path")] = m.value("class", "");
  return out;
}

}  // namespace

TEST_CASE("metadata strategy on real dynamo exports equals name_scopes") {
  mx_registry* registry = plugin_registry();
  for (const char* name : {"tiny_mlp", "small_cnn", "mini_transformer"}) {
    CAPTURE(name);
    check_fixture(registry, name);
  }
  mx_registry_release(registry);
}

TEST_CASE("dynamo class hierarchy reaches the module tree") {
  mx_registry* registry = plugin_registry();
  json document = tag(registry, "metadata", std::string(MX_TEST_DYNAMO_DIR) + "/mini_transformer.onnx");
  auto classes = classes_of(document);
  CHECK(classes[""] == "MiniTransformer");
  CHECK(classes["layers.0"] == "TransformerBlock");
  CHECK(classes["layers.0.attention.query"] == "Linear");
  CHECK(classes["layers.1.ln2"] == "LayerNorm");
  mx_registry_release(registry);
}

TEST_CASE("usage strategy on a dynamo export: parameters that survive name modules") {
  // The exporter folds each Linear's transposed weight into a new `val_N`
  // initializer, and its optimizer merges equal-valued initializers, so all
  // five LayerNorms consume `layers.0.ln1.weight`/`.bias` (shared: no
  // evidence). What is left — 12 Linear biases and the embedding table,
  // 13 nodes measured — must agree with name_scopes.
  mx_registry* registry = plugin_registry();
  std::string dir = MX_TEST_DYNAMO_DIR;
  json expected = read_json(dir + "/mini_transformer.expected.json");
  json document = tag(registry, "usage", dir + "/mini_transformer.onnx");
  size_t placed = 0;
  for (const auto& got : document.at("nodes")) {
    if (got.at("evidence") != "parameter") continue;
    size_t index = &got - &document.at("nodes")[0];
    CAPTURE(got.at("name").get<std::string>());
    CHECK(got.at("module") == expected.at("nodes").at(index).at("module"));
    ++placed;
  }
  CHECK(placed >= 13);
  MESSAGE("usage placed " << placed << " of " << document.at("nodes").size()
                          << " nodes by parameter evidence");
  mx_registry_release(registry);
}
