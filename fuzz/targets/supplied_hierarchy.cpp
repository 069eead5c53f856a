// A supplied hierarchy (`tag --hierarchy H.json`, option "hierarchy") with
// its forward outlines, through what tagging does with it: validation
// (load_supplied_hierarchy), propagation with the outlines and the module
// tree. The graph is fixed: a small BERT-like encoder (embedding, attention
// mask arithmetic, two layers, pooler) whose parameter ops are placed as the
// `usage` strategy would. Oracle: an accepted hierarchy gives every node a
// module that is a valid path; a refused one is a schema/parse error, never
// MX_ERR_INTERNAL, another exception, a hang or a crash (outlines may call
// a module's own ancestor, itself, or paths that do not exist).
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_common.hpp"
#include "mx/common/module_path.hpp"
#include "tagging/rebuilt_tree.hpp"
#include "tagging/propagation.hpp"
#include "tagging/supplied_hierarchy.hpp"
#include "util/error.hpp"

using namespace mx;
using mx::common::is_valid_module_path;

namespace {

struct Fixture {
  GraphView graph;
  Assignments placed;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture x;
    auto node = [&](const char* op, std::vector<std::string> in, std::vector<std::string> out,
                    const char* module) {
      x.graph.add_node("", op, in, out);  // the view keeps the names
      x.placed.push_back(module ? Assignment{module, hierarchy::Evidence::parameter} : Assignment());
    };
    x.graph.initializers = {"emb.weight", "w0", "w1", "wp"};
    node("Gather", {"emb.weight", "ids"}, {"h"}, "emb");
    node("Slice", {"mask"}, {"ms"}, nullptr);
    node("Mul", {"ms"}, {"m"}, nullptr);
    node("MatMul", {"h", "w0"}, {"a0"}, "enc.layer.0.attn");
    node("Add", {"a0", "m"}, {"s0"}, nullptr);
    node("Softmax", {"s0"}, {"p0"}, nullptr);
    node("LayerNormalization", {"p0"}, {"l0"}, "enc.layer.0.ln");
    node("Pow", {"l0"}, {"q"}, nullptr);
    node("MatMul", {"q", "w1"}, {"a1"}, "enc.layer.1.attn");
    node("Add", {"a1", "m"}, {"s1"}, nullptr);
    node("LayerNormalization", {"s1"}, {"l1"}, "enc.layer.1.ln");
    node("Slice", {"l1"}, {"c"}, nullptr);
    node("Gemm", {"c", "wp"}, {"y"}, "pooler.dense");
    node("Tanh", {"y"}, {"t"}, nullptr);
    node("Constant", {}, {"k"}, nullptr);
    node("Mul", {"t", "k"}, {"out"}, nullptr);
    return x;
  }();
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > mxfuzz::kMaxInput) return 0;
  const auto text = nlohmann::json::parse(data, data + size, nullptr, false);
  if (text.is_discarded()) return 0;
  try {
    SuppliedHierarchy supplied = load_supplied_hierarchy(text);
    if (supplied.document.is_null()) return 0;
    const nlohmann::json& doc = supplied.document;
    const Fixture& f = fixture();
    auto result = propagate(f.graph, f.placed, doc.at("modules"));
    if (result.size() != f.graph.nodes.size()) mxfuzz::finding("propagate", "node count changed");
    ModuleTree& tree = *supplied.tree;
    for (const auto& a : result) {
      if (!is_valid_module_path(a.module))
        mxfuzz::finding("propagate", "invalid module path '" + a.module + "'");
      tree.add_path(a.module);
    }
    // The modules tagging would write (checked above: never a schema error).
    (void)tree.take_modules();
  } catch (const Error& e) {
    if (e.code() == MX_ERR_INTERNAL) mxfuzz::finding("supplied hierarchy", e.what());
  } catch (const std::exception& e) {
    mxfuzz::finding("supplied hierarchy", std::string("exception: ") + e.what());
  }
  return 0;
}
