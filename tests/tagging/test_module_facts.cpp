// ModuleFacts asked by id (a Ref carrying the module's id) answers what it
// answers by path: propagation carries ids to skip the path lookups, so any
// difference would change where nodes go.
#include <doctest/doctest.h>

#include "mx/common/module_path.hpp"
#include "tagging/module_facts.hpp"

#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

using namespace mx;
using Ref = ModuleFacts::Ref;
using Id = ModuleFacts::Id;

namespace {

// Random module paths: numeric and named segments (numeric children make a
// container), some prefixes of others, "layer1" beside "layer10".
std::vector<std::string> random_paths(std::mt19937& rng) {
  static const char* segments[] = {"0", "1", "10", "layer1", "layer10", "act", "dense", "norm"};
  std::vector<std::string> out;
  const int count = 1 + static_cast<int>(rng() % 30);
  for (int i = 0; i < count; ++i) {
    std::string p;
    const int depth = 1 + static_cast<int>(rng() % 4);
    for (int d = 0; d < depth; ++d) {
      if (!p.empty()) p += '.';
      p += segments[rng() % 8];
    }
    out.push_back(p);
  }
  return out;
}

// A supplied hierarchy for some of the paths (classes, parameter counts,
// outlines that call other paths or run ops), or none.
nlohmann::json random_supplied(std::mt19937& rng, const std::vector<std::string>& paths) {
  nlohmann::json modules = nlohmann::json::array();
  if (rng() % 3 == 0) return nlohmann::json();
  static const char* classes[] = {"Sequential", "ModuleList", "ReLU", "Linear", "Block", ""};
  static const char* ops[] = {"aten::add", "aten::relu", "aten::linear", "aten::view", "aten::unknown_op"};
  for (const auto& p : paths) {
    if (rng() % 2) continue;
    nlohmann::json m = {{"path", p}, {"class", classes[rng() % 6]}};
    if (rng() % 2) m["qualified_class"] = rng() % 2 ? "torch.nn.Linear" : "my.Block";
    if (rng() % 2) m["parameters"] = static_cast<int>(rng() % 3);
    if (rng() % 2) m["own_parameters"] = static_cast<int>(rng() % 3);
    if (rng() % 2) {
      nlohmann::json forward = nlohmann::json::array();
      for (int s = static_cast<int>(rng() % 4); s > 0; --s)
        forward.push_back(rng() % 2 ? nlohmann::json{{"call", paths[rng() % paths.size()]}}
                                    : nlohmann::json{{"op", ops[rng() % 5]}});
      m["forward"] = forward;
    }
    modules.push_back(m);
  }
  return modules;
}

// Every question, asked by path and by a Ref with the id.
void check_same(const ModuleFacts& facts, std::string_view p) {
  const Ref by_id = facts.ref(p);
  const Ref by_path(p);
  CAPTURE(p);
  CHECK(by_id.path == p);
  CHECK(facts.is_leaf(by_id) == facts.is_leaf(by_path));
  CHECK(facts.is_container(by_id) == facts.is_container(by_path));
  CHECK(facts.has_parameters(by_id) == facts.has_parameters(by_path));
  CHECK(facts.parameter_free(by_id) == facts.parameter_free(by_path));
  CHECK(facts.builtin(by_id) == facts.builtin(by_path));
  CHECK(facts.closed_leaf(by_id) == facts.closed_leaf(by_path));
  CHECK(facts.open_parameter_leaf(by_id) == facts.open_parameter_leaf(by_path));
  CHECK(facts.has_parameter_free_child(by_id) == facts.has_parameter_free_child(by_path));
  CHECK(facts.children(by_id) == facts.children(by_path));
  CHECK(facts.class_of(by_id) == facts.class_of(by_path));
  CHECK(facts.outline(by_id) == facts.outline(by_path));
  CHECK(facts.passes_through(by_id) == facts.passes_through(by_path));
  CHECK(facts.empty_forward(by_id) == facts.empty_forward(by_path));
  CHECK(facts.has_nodes(by_id) == facts.has_nodes(by_path));
  for (const char* op : {"Add", "Relu", "MatMul", "Reshape"}) {
    CHECK(facts.can_run(by_id, op) == facts.can_run(by_path, op));
    CHECK(facts.can_run_after(by_id, "Add", op) == facts.can_run_after(by_path, "Add", op));
  }
  // The answers that are modules carry the id of their own path.
  const Ref up = facts.parent(by_id);
  CHECK(up.path == mx::common::parent_view(p));
  // A known module's parent is known; an unknown path's parent is looked up.
  if (by_id.id != Id::none) CHECK(up.id == facts.ref(up.path).id);
  else CHECK(up.id == Id::none);
  const Ref owner = facts.owning(by_id);
  CHECK(owner.path == facts.owning(by_path).path);
  CHECK(owner.id == facts.ref(owner.path).id);
}

}  // namespace

TEST_CASE("module facts: asked by id, the same answers as by path") {
  std::mt19937 rng(20261126);
  for (int round = 0; round < 200; ++round) {
    const std::vector<std::string> paths = random_paths(rng);
    const nlohmann::json supplied = random_supplied(rng, paths);
    Assignments a;
    for (int i = static_cast<int>(rng() % 20); i > 0; --i)
      if (rng() % 4 == 0) a.push_back(Assignment());
      else
        a.push_back(Assignment{paths[rng() % paths.size()],
                               rng() % 2 ? hierarchy::Evidence::parameter : hierarchy::Evidence::scope});
    ModuleFacts facts(supplied, a);
    const std::vector<Id> nodes = facts.take_node_modules();
    REQUIRE(nodes.size() == a.size());
    for (size_t i = 0; i < a.size(); ++i)
      CHECK(nodes[i] == (a[i].placed() ? facts.ref(a[i].module).id : Id::none));
    std::vector<std::string> asked = paths;
    asked.push_back("");
    asked.push_back("not.a.module");
    for (const auto& p : paths) asked.push_back(std::string(mx::common::parent_view(p)));
    for (const auto& p : asked) check_same(facts, p);
    for (const auto& x : asked)
      for (const auto& y : asked) {
        const Ref common = facts.common_ancestor(facts.ref(x), Ref(y));
        CHECK(common.path == mx::common::common_ancestor_view(x, y));
        // With `x`'s id the answer's (by its parents); without, none.
        if (facts.ref(x).id != Id::none) CHECK(common.id == facts.ref(common.path).id);
      }
  }
}

TEST_CASE("module facts: a known module has an id, an unknown path none") {
  Assignments a{Assignment{"encoder.layer.0.dense", hierarchy::Evidence::parameter}, Assignment(),
                Assignment{"encoder.layer.0.act", hierarchy::Evidence::scope}};
  ModuleFacts facts(nlohmann::json(), a);
  const std::vector<Id> nodes = facts.take_node_modules();
  CHECK(nodes[0] != Id::none);
  CHECK(nodes[1] == Id::none);
  CHECK(nodes[0] != nodes[2]);
  CHECK(facts.ref("encoder.layer.0").id != Id::none);
  CHECK(facts.ref("").id != Id::none);
  CHECK(facts.ref("encoder.layer.1").id == Id::none);
  CHECK(facts.parent(facts.ref("encoder")).path.empty());
  CHECK(facts.parent(facts.ref("")).path.empty());
  CHECK(facts.is_leaf(Ref("encoder.layer.0.dense", nodes[0])));
  CHECK_FALSE(facts.is_leaf(facts.parent(Ref("encoder.layer.0.dense", nodes[0]))));
}
