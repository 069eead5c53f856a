// The `namespace` node metadata (model/dynamo_namespace): the called
// modules from the root, each named relative to the last one written, an
// uncalled container folded into its item's name; asked in an order that
// exercises the chain kept for consecutive siblings and its rebuilding.
#include <doctest/doctest.h>

#include <algorithm>

#include "hierarchy/document.hpp"
#include "dynamo_reference.hpp"
#include "model/dynamo_namespace.hpp"

using namespace mx;
using testing::reference_prefix;

using testing::dynamo_module;

TEST_CASE("dynamo namespaces: called chain, folded containers, siblings") {
  const std::vector<hierarchy::Module> modules = {
      dynamo_module("", "Root"),
      dynamo_module("encoder", "Encoder", true),
      dynamo_module("encoder.layer", "ModuleList", false),  // never called itself
      dynamo_module("encoder.layer.0", "Layer", true),
      dynamo_module("encoder.layer.0.dense", "Linear", true),
      dynamo_module("encoder.layer.0.act", "ReLU", true),
      dynamo_module("encoder.layer.1", "Layer", true),
      dynamo_module("encoder.layer.1.dense", "Linear", true),
  };
  model::DynamoNamespaces ns(modules);

  CHECK(ns.prefix("encoder.layer.0.dense") == ": Root/encoder: Encoder/layer.0: Layer/dense: Linear/");
  CHECK(ns.prefix("encoder.layer.0.act") == ": Root/encoder: Encoder/layer.0: Layer/act: ReLU/");
  CHECK(ns.prefix("encoder.layer.1.dense") == ": Root/encoder: Encoder/layer.1: Layer/dense: Linear/");
  // The container itself, as a node's module, is written (by its name).
  CHECK(ns.prefix("encoder.layer") == ": Root/encoder: Encoder/layer: ModuleList/");
  CHECK(ns.prefix("encoder.layer.0") == ": Root/encoder: Encoder/layer.0: Layer/");
  CHECK(ns.prefix("") == ": Root/");
  CHECK(ns.prefix("encoder") == ": Root/encoder: Encoder/");
  CHECK(ns.prefix("not.a.module").empty());
  CHECK(ns.prefix("encoder.layer.0.dense") == ": Root/encoder: Encoder/layer.0: Layer/dense: Linear/");
  CHECK(ns.of("encoder.layer.0.act", "/encoder/layer.0/act/Relu", "Relu") ==
        ": Root/encoder: Encoder/layer.0: Layer/act: ReLU//encoder/layer.0/act/Relu: Relu");
}

TEST_CASE("dynamo namespaces: kept chains give the namespace's definition in any order") {
  // Path order and another order, with uncalled containers at two levels
  // and a module whose parent is no module.
  std::vector<hierarchy::Module> modules = testing::layered_modules(12, 5, 3);
  std::vector<std::string> asked;
  for (int k = 0; k < 12; ++k) {  // node order: a layer's modules, back and forth
    const std::string layer = "encoder.layer." + std::to_string(k);
    for (const char* sub : {".blocks.0.dense", "", ".act", ".blocks.0", "", ".blocks", ".act"})
      asked.push_back(layer + sub);
  }
  for (const char* other : {"encoder", "", "orphan.child", "encoder.layer", "missing", "encoder.layer.3.act"})
    asked.push_back(other);
  for (bool in_path_order : {false, true}) {
    if (in_path_order)
      std::sort(modules.begin(), modules.end(),
                [](const hierarchy::Module& a, const hierarchy::Module& b) { return a.path < b.path; });
    model::DynamoNamespaces ns(modules);
    for (const auto& path : asked) {
      CAPTURE(path);
      CAPTURE(in_path_order);
      CHECK(ns.prefix(path) == reference_prefix(modules, path));
    }
    // A record's module_at hint: right, pointing at another module, or
    // past the end: the same answers (a wrong hint is looked past).
    model::DynamoNamespaces hinted(modules);
    for (size_t k = 0; k < asked.size(); ++k) {
      const std::string& path = asked[k];
      size_t right = hierarchy::kNoPosition;
      for (size_t i = 0; i < modules.size(); ++i)
        if (modules[i].path == path) right = i;
      for (size_t hint : {right, (right + 1) % modules.size(), k % modules.size(), modules.size() + 3}) {
        CAPTURE(path);
        CAPTURE(hint);
        CHECK(hinted.prefix(path, hint) == reference_prefix(modules, path));
      }
    }
  }
}

TEST_CASE("dynamo namespaces: parent hints and a kept index give the same prefixes") {
  std::vector<hierarchy::Module> modules = testing::layered_modules(6, 4, 1);
  const hierarchy::ModuleIndex index(modules);
  std::vector<std::string> asked;
  for (const auto& m : modules) asked.push_back(m.path);
  asked.push_back("missing");
  std::vector<std::string> expected;
  for (const auto& path : asked) expected.push_back(reference_prefix(modules, path));
  // Parent hints (hierarchy::Module::parent_at, as tagging sets them):
  // right ones, another module's and ones past the end.
  for (size_t i = 0; i < modules.size(); ++i) {
    const size_t right = index.parents()[i];
    modules[i].parent_at = i % 3 == 0 ? right : i % 3 == 1 ? (i * 7) % modules.size() : modules.size() + i;
  }
  model::DynamoNamespaces own(modules);
  model::DynamoNamespaces kept(modules, &index);
  for (size_t k = 0; k < asked.size(); ++k) {
    CAPTURE(asked[k]);
    CHECK(own.prefix(asked[k]) == expected[k]);
    CHECK(kept.prefix(asked[k]) == expected[k]);
  }
}

TEST_CASE("dynamo namespaces: a hint naming a repeated path's second module is taken") {
  // No check accepts such a document; the hint is trusted as documented
  // (hierarchy::NodeRecord::module_at), a lookup without one gives the first.
  std::vector<hierarchy::Module> modules = {testing::dynamo_module("", "Root"),
                                            testing::dynamo_module("a", "First", true),
                                            testing::dynamo_module("a", "Second", true)};
  model::DynamoNamespaces ns(modules);
  CHECK(ns.prefix("a", 2) == ": Root/a: Second/");
  CHECK(ns.prefix("a", 0) == ": Root/a: First/");
  CHECK(ns.prefix("a") == ": Root/a: First/");
}
