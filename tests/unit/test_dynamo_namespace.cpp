// The `namespace` node metadata (model/dynamo_namespace): the called
// modules from the root, each named relative to the last one written, an
// uncalled container folded into its item's name; asked in an order that
// exercises the chain kept for consecutive siblings and its rebuilding.
#include <doctest/doctest.h>

#include "hierarchy/document.hpp"
#include "model/dynamo_namespace.hpp"

using namespace modelexport;

namespace {

hierarchy::Module module(const std::string& path, const std::string& cls,
                         std::optional<bool> executed = std::nullopt) {
  hierarchy::Module m;
  m.path = path;
  m.class_name = cls;
  if (!path.empty()) m.parent = path.find('.') == std::string::npos ? "" : path.substr(0, path.rfind('.'));
  m.executed = executed;
  return m;
}

}  // namespace

TEST_CASE("dynamo namespaces: called chain, folded containers, siblings") {
  const std::vector<hierarchy::Module> modules = {
      module("", "Root"),
      module("encoder", "Encoder", true),
      module("encoder.layer", "ModuleList", false),  // never called itself
      module("encoder.layer.0", "Layer", true),
      module("encoder.layer.0.dense", "Linear", true),
      module("encoder.layer.0.act", "ReLU", true),
      module("encoder.layer.1", "Layer", true),
      module("encoder.layer.1.dense", "Linear", true),
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
