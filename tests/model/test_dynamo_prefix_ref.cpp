// DynamoNamespaces::prefix_ref / parts_of: a module's prefix kept as where
// its pieces are (NodeTagWriter plans every node before writing any). Every
// reference taken stays valid while more chains are built after it, and
// its pieces make exactly the prefix that `prefix` writes, whatever hint
// came with it (right, another module's, past the end): the prefix by its
// definition.
#include <doctest/doctest.h>

#include <algorithm>

#include "hierarchy/document.hpp"
#include "dynamo_reference.hpp"
#include "model/dynamo_namespace.hpp"

using namespace mx;
using testing::reference_prefix;

using testing::dynamo_module;

namespace {

std::string joined(const model::DynamoNamespaces::PrefixParts& parts) {
  std::string out;
  for (std::string_view p : parts) out += p;
  return out;
}

std::vector<hierarchy::Module> layered(int layers) {
  return testing::layered_modules(layers, 4, 1);
}

}  // namespace

TEST_CASE("dynamo namespaces: prefix references stay valid and equal the prefix") {
  for (bool in_path_order : {false, true}) {
    auto modules = layered(40);  // enough chains to grow their text many times
    if (in_path_order)
      std::sort(modules.begin(), modules.end(),
                [](const hierarchy::Module& a, const hierarchy::Module& b) { return a.path < b.path; });
    std::vector<std::string> asked;
    for (int k = 0; k < 40; ++k) {
      const std::string layer = "encoder.layer." + std::to_string(k);
      for (const char* sub : {".blocks.0.dense", "", ".act", ".blocks.0", ".blocks"})
        asked.push_back(layer + sub);
    }
    for (const char* other :
         {"", "encoder", "encoder.layer", "orphan.child", "missing", "encoder.layer.7.act"})
      asked.push_back(other);

    model::DynamoNamespaces ns(modules);
    std::vector<model::DynamoNamespaces::PrefixRef> refs;
    std::vector<std::string> expected;
    for (size_t k = 0; k < asked.size(); ++k) {
      size_t right = hierarchy::kNoPosition;
      for (size_t i = 0; i < modules.size(); ++i)
        if (modules[i].path == asked[k]) right = i;
      expected.push_back(reference_prefix(modules, asked[k]));
      const size_t hints[] = {right, (right + 1) % modules.size(), k % modules.size(), modules.size() + 3};
      refs.push_back(ns.prefix_ref(asked[k], hints[k % 4]));
    }
    // Read after every chain was built (as write_suffix reads its plans).
    for (size_t k = 0; k < asked.size(); ++k) {
      CAPTURE(asked[k]);
      CAPTURE(in_path_order);
      CHECK(joined(ns.parts_of(refs[k])) == expected[k]);
    }
    CHECK(joined(ns.parts_of(ns.prefix_ref("missing"))).empty());
  }
}

TEST_CASE("dynamo namespaces: layout is the prefix, the node's name, ': ', its op_type") {
  const std::vector<hierarchy::Module> modules = {dynamo_module("", "Root", std::nullopt),
                                                  dynamo_module("fc", "Linear", true)};
  model::DynamoNamespaces ns(modules);
  std::string value;
  for (std::string_view p :
       model::DynamoNamespaces::layout(ns.parts_of(ns.prefix_ref("fc", 1)), "/fc/Gemm", "Gemm"))
    value += p;
  CHECK(value == ": Root/fc: Linear//fc/Gemm: Gemm");
  CHECK(ns.of("fc", "/fc/Gemm", "Gemm") == value);
}
