// The two ways a strategy reads the graph give the same tags: the host's
// reader (plugin ABI 1.2, the default) and the JSON request (the 1.0
// protocol, registry option "graph_reader": false). Every strategy of this
// tree and "auto", through the real host and plugins, on the committed
// dynamo fixtures and on a scope-named synthetic model with unnamed nodes,
// a name and a metadata value that are not valid UTF-8; the hierarchy
// documents and the saved model bytes must be identical.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "require_ok.hpp"
#include "synthetic_model.hpp"

using nlohmann::json;

namespace {

mx_registry* registry(bool graph_reader) {
  mx_registry* r = nullptr;
  std::string options =
      json{{"discover", false}, {"plugin_dirs", {MX_TEST_PLUGIN_DIR}}, {"graph_reader", graph_reader}}.dump();
  ok(mx_registry_create(options.c_str(), &r));
  return r;
}

struct Tagged {
  std::string document, bytes;
};

Tagged tag(mx_registry* r, const std::string& strategy, mx_model* model, const std::string& options = "{}") {
  ok(mx_registry_tag(r, strategy.c_str(), model, options.c_str()));
  Tagged out;
  char* text = nullptr;
  size_t size = 0;
  ok(mx_model_hierarchy_json(model, &text, &size));
  out.document.assign(text, size);
  mx_free(text);
  void* bytes = nullptr;
  ok(mx_model_save_bytes(model, "{\"check\":false}", &bytes, &size));
  out.bytes.assign(static_cast<const char*>(bytes), size);
  mx_free(bytes);
  return out;
}

// Loads a fresh model for each tag: a tag replaces the document, and the
// second run must not see the first one's records.
template <typename Load>
void check_same(const std::string& label, Load load, const std::string& options = "{}") {
  mx_registry* reader = registry(true);
  mx_registry* json_text = registry(false);
  for (const char* strategy : {"metadata", "scope", "usage", "auto"}) {
    mx_model* a = load();
    mx_model* b = load();
    Tagged by_reader = tag(reader, strategy, a, options);
    Tagged by_json = tag(json_text, strategy, b, options);
    CHECK_MESSAGE(by_reader.document == by_json.document, label << " / " << strategy);
    CHECK_MESSAGE(by_reader.bytes == by_json.bytes, label << " / " << strategy);
    // Not vacuous: something was placed by evidence, not only propagated.
    json doc = json::parse(by_reader.document);
    size_t observed = 0;
    for (const auto& n : doc.at("nodes")) {
      const std::string evidence = n.value("evidence", "");
      observed += evidence != "propagated" && evidence != "root";
    }
    if (std::string(strategy) == "auto") CHECK_MESSAGE(observed > 0, label);
    mx_model_release(a);
    mx_model_release(b);
  }
  mx_registry_release(reader);
  mx_registry_release(json_text);
}

}  // namespace

TEST_CASE("dynamo fixtures: reader and JSON request tag alike") {
  for (const char* name : {"tiny_mlp", "small_cnn", "mini_transformer"}) {
    const std::string path = std::string(MX_TEST_DYNAMO_DIR) + "/" + name + ".onnx";
    check_same(name, [&] {
      mx_model* m = nullptr;
      ok(mx_model_load_file(path.c_str(), &m));
      return m;
    });
  }
}

// A supplied hierarchy (the strategies read its modules through the reader,
// or as the request's "modules"): the modules metadata found in
// mini_transformer, each with a forward outline calling its children and
// running one op, and own parameter counts on the leaves.
json supplied_hierarchy(const std::string& path) {
  mx_registry* r = registry(true);
  mx_model* m = nullptr;
  ok(mx_model_load_file(path.c_str(), &m));
  json doc = json::parse(tag(r, "metadata", m).document);
  mx_model_release(m);
  mx_registry_release(r);
  json modules = json::array();
  for (json module : doc.at("modules")) {
    json forward = json::array();
    for (const auto& child : module.value("children", json::array())) forward.push_back({{"call", child}});
    forward.push_back(
        {{"op", module.value("children", json::array()).empty() ? "aten::linear" : "aten::add"}});
    module["forward"] = forward;
    if (module.value("children", json::array()).empty()) module["own_parameters"] = 8;
    modules.push_back(module);
  }
  REQUIRE(modules.size() > 3);
  return {{"schema", "modelexport.hierarchy/1"}, {"modules", modules}, {"nodes", json::array()}};
}

TEST_CASE("a supplied hierarchy with outlines: reader and JSON request tag alike") {
  const std::string path = std::string(MX_TEST_DYNAMO_DIR) + "/mini_transformer.onnx";
  const std::string options = json{{"hierarchy", supplied_hierarchy(path)}}.dump();
  check_same(
      "mini_transformer + hierarchy",
      [&] {
        mx_model* m = nullptr;
        ok(mx_model_load_file(path.c_str(), &m));
        return m;
      },
      options);
}

TEST_CASE("supplied modules reach a reader: scope snaps to them, as with the JSON request") {
  // The supplied tree lists encoder.layer.K but not its dense/act children:
  // the scope strategy places /encoder/layer.K/dense/MatMul in
  // encoder.layer.K only if it sees the supplied modules (without them it
  // would take encoder.layer.K.dense from the file's own names).
  const int layers = 20;
  const std::string bytes = synthetic::scoped_model(layers).SerializeAsString();
  json modules = json::array({{{"path", ""}, {"class", "Net"}},
                              {{"path", "encoder"}, {"class", "Encoder"}},
                              {{"path", "encoder.layer"}, {"class", "ModuleList"}}});
  for (int k = 0; k < layers; ++k)
    modules.push_back({{"path", "encoder.layer." + std::to_string(k)},
                       {"class", "Layer"},
                       {"own_parameters", 64},
                       {"forward", json::array({{{"op", "aten::matmul"}}, {{"op", "aten::relu"}}})}});
  const std::string options =
      json{{"hierarchy",
            {{"schema", "modelexport.hierarchy/1"}, {"modules", modules}, {"nodes", json::array()}}}}
          .dump();
  auto load = [&] {
    mx_model* m = nullptr;
    ok(mx_model_load_bytes(bytes.data(), bytes.size(), &m));
    return m;
  };
  check_same("synthetic + hierarchy", load, options);
  mx_registry* r = registry(true);
  mx_model* m = load();
  json doc = json::parse(tag(r, "scope", m, options).document);
  bool found = false;
  for (const auto& n : doc.at("nodes"))
    if (n.value("name", "") == "/encoder/layer.0/dense/MatMul") {
      CHECK(n.value("module", "") == "encoder.layer.0");
      CHECK(n.value("evidence", "") == "scope");
      found = true;
    }
  CHECK(found);
  mx_model_release(m);
  mx_registry_release(r);
}

TEST_CASE("scope names, unnamed nodes and invalid UTF-8: reader and JSON request tag alike") {
  onnx::ModelProto proto = synthetic::scoped_model(50);
  auto* graph = proto.mutable_graph();
  graph->mutable_node(1)->clear_name();  // unnamed glue
  graph->mutable_node(5)->clear_name();
  graph->mutable_node(3)->set_name("/encoder/layer.0/act\xff/Relu");  // not UTF-8
  // A dynamo-style record on one node, with a value that is not UTF-8.
  onnx::StringStringEntryProto entry;
  entry.set_key("namespace");
  entry.set_value(": M/encoder: E/x\xfe: aten.relu.default");
  *graph->mutable_node(7)->add_metadata_props() = entry;
  const std::string bytes = proto.SerializeAsString();
  check_same("synthetic", [&] {
    mx_model* m = nullptr;
    ok(mx_model_load_bytes(bytes.data(), bytes.size(), &m));
    return m;
  });
}
