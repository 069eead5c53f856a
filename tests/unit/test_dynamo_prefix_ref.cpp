// DynamoNamespaces::prefix_ref / parts_of: a module's prefix kept as where
// its pieces are (NodeTagWriter plans every node before writing any). Every
// reference taken stays valid while more chains are built after it, and
// its pieces make exactly the prefix that `prefix` writes, whatever hint
// came with it (right, another module's, past the end): the prefix by its
// definition.
#include <doctest/doctest.h>

#include <algorithm>

#include "hierarchy/document.hpp"
#include "model/dynamo_namespace.hpp"

using namespace modelexport;

namespace {

hierarchy::Module module(const std::string& path, const std::string& cls, std::optional<bool> executed) {
  hierarchy::Module m;
  m.path = path;
  m.class_name = cls;
  if (!path.empty()) m.parent = path.find('.') == std::string::npos ? "" : path.substr(0, path.rfind('.'));
  m.executed = executed;
  return m;
}

// The namespace prefix by its definition (as test_dynamo_namespace's
// reference): the called modules from the root, walking parents by path,
// each named relative to the last one written.
std::string reference_prefix(const std::vector<hierarchy::Module>& modules, const std::string& path) {
  const hierarchy::ModuleIndex index(modules);
  const hierarchy::Module* m = index.find(path);
  if (!m) return "";
  std::vector<const hierarchy::Module*> chain;  // m .. root
  for (const hierarchy::Module* at = m; at;) {
    chain.push_back(at);
    if (at->path.empty()) break;
    const size_t parent = index.parents()[index.position(*at)];
    at = parent == hierarchy::ModuleIndex::kNone ? nullptr : &modules[parent];
  }
  std::string text, scope;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const hierarchy::Module& c = **it;
    if (&c != m && !c.path.empty() && c.executed == false) continue;
    if (!text.empty()) text += '/';
    std::string name = c.path;
    if (!scope.empty() && c.path.size() > scope.size() && c.path.compare(0, scope.size(), scope) == 0 &&
        c.path[scope.size()] == '.')
      name = c.path.substr(scope.size() + 1);
    text += name + ": " + (c.qualified_class.empty() ? c.class_name : c.qualified_class);
    scope = c.path;
  }
  return text + "/";
}

std::string joined(const model::DynamoNamespaces::PrefixParts& parts) {
  std::string out;
  for (std::string_view p : parts) out += p;
  return out;
}

std::vector<hierarchy::Module> layered(int layers) {
  std::vector<hierarchy::Module> modules = {module("", "Root", std::nullopt),
                                            module("encoder", "Encoder", true),
                                            module("encoder.layer", "ModuleList", false)};
  for (int k = 0; k < layers; ++k) {
    const std::string layer = "encoder.layer." + std::to_string(k);
    modules.push_back(module(layer, "Layer", k % 4 != 1));
    modules.push_back(module(layer + ".blocks", "ModuleList", false));
    modules.push_back(module(layer + ".blocks.0", "Block", true));
    modules.push_back(module(layer + ".blocks.0.dense", "Linear", true));
    modules.push_back(module(layer + ".act", "ReLU", true));
  }
  modules.push_back(module("orphan.child", "Lost", true));
  modules.back().parent = "orphan";
  return modules;
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
      for (const char* sub : {".blocks.0.dense", "", ".act", ".blocks.0", ".blocks"}) asked.push_back(layer + sub);
    }
    for (const char* other : {"", "encoder", "encoder.layer", "orphan.child", "missing", "encoder.layer.7.act"})
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
  const std::vector<hierarchy::Module> modules = {module("", "Root", std::nullopt), module("fc", "Linear", true)};
  model::DynamoNamespaces ns(modules);
  std::string value;
  for (std::string_view p : model::DynamoNamespaces::layout(ns.parts_of(ns.prefix_ref("fc", 1)), "/fc/Gemm", "Gemm"))
    value += p;
  CHECK(value == ": Root/fc: Linear//fc/Gemm: Gemm");
  CHECK(ns.of("fc", "/fc/Gemm", "Gemm") == value);
}
