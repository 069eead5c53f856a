// validate_consistency and ModuleIndex::parents take shortcuts for trees
// listed in path order (a parent found by comparing the previous modules'
// paths, a child by the parent positions, a path scanned after its
// parent's prefix, no cycle walk when every parent comes first). Here they
// are held, on random trees in and out of that order, with and without
// defects, to a plain implementation of the same rules: the same accepted
// documents and the same first message. And the index set_hierarchy keeps
// with the document: handed out while it indexes the document's modules,
// never to a copy.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fixture_model.hpp"
#include "hierarchy/parse.hpp"
#include "model/model.hpp"
#include "mx/common/module_path.hpp"
#include "util/error.hpp"
#include "util/utf8.hpp"

using namespace mx;
using hierarchy::Document;
using hierarchy::Module;
using hierarchy::ModuleIndex;

namespace {

std::string q(const std::string& s) {
  return "'" + printable(s) + "'";
}

// The rules of parse.hpp's validate_consistency, written plainly: a map
// lookup for every path, every byte of every path scanned, every chain
// walked. Returns the first problem's message ("" for none).
std::string plain_check(const Document& doc) {
  const std::string w = "h: ";
  std::unordered_map<std::string, size_t> first;
  for (size_t i = 0; i < doc.modules.size(); ++i) first.emplace(doc.modules[i].path, i);
  auto mod = [](size_t i) { return "modules[" + std::to_string(i) + "]"; };
  for (size_t i = 0; i < doc.modules.size(); ++i) {
    const std::string& p = doc.modules[i].path;
    if (!mx::common::is_valid_module_path(p))
      return w + mod(i) + ".path: " + q(p) +
             " is not a module path (dot-separated names without '/', spaces or control characters)";
    if (first.at(p) != i) return w + mod(i) + ".path: " + q(p) + " appears twice";
  }
  std::vector<size_t> parents(doc.modules.size(), ModuleIndex::kNone);
  for (size_t i = 0; i < doc.modules.size(); ++i) {
    if (doc.modules[i].path.empty()) continue;
    auto it = first.find(hierarchy::parent_of(doc.modules[i]));
    if (it != first.end()) parents[i] = it->second;
  }
  for (size_t i = 0; i < doc.modules.size(); ++i) {
    const Module& m = doc.modules[i];
    if (m.parent && (m.path.empty() ? !first.count(*m.parent) : parents[i] == ModuleIndex::kNone))
      return w + mod(i) + ".parent: " + q(*m.parent) + " is not a module path";
    if (m.parent && !m.path.empty() && !m.parent->empty() &&
        (m.path == *m.parent || !mx::common::is_ancestor_or_self(*m.parent, m.path)))
      return w + mod(i) + ".parent: " + q(*m.parent) + " is not a prefix of the module's path " + q(m.path);
    for (size_t c = 0; c < m.children.size(); ++c)
      if (!first.count(m.children[c]))
        return w + mod(i) + ".children[" + std::to_string(c) + "]: " + q(m.children[c]) +
               " is not a module path";
  }
  std::vector<char> state(doc.modules.size(), 0);
  for (size_t start = 0; start < doc.modules.size(); ++start) {
    std::vector<size_t> chain;
    for (size_t i = start; i != ModuleIndex::kNone && state[i] != 2; i = parents[i]) {
      if (state[i] == 1)
        return w + mod(i) + ".parent: the parent chain of " + q(doc.modules[i].path) +
               " is a cycle (a module cannot be its own ancestor)";
      state[i] = 1;
      chain.push_back(i);
    }
    for (size_t c : chain) state[c] = 2;
  }
  for (size_t i = 0; i < doc.nodes.size(); ++i)
    if (!doc.modules.empty() && !first.count(doc.nodes[i].module))
      return w + "nodes[" + std::to_string(i) + "].module: " + q(doc.nodes[i].module) + " is not in modules";
  return "";
}

std::string checked(const Document& doc) {
  try {
    hierarchy::validate_consistency(doc, "h");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A random tree in path order: parents before children, children listed
// in the order the modules come, "parent" given or left to the path.
Document random_tree(std::mt19937& rng, size_t size) {
  std::vector<std::string> paths = {""};
  const char* names[] = {"a", "b", "layer", "0", "1", "12", "a-b", "x_y"};
  while (paths.size() < size) {
    const std::string& parent = paths[rng() % paths.size()];
    const std::string path = mx::common::join_path(parent, names[rng() % 8]);
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
  }
  std::sort(paths.begin(), paths.end());
  Document doc;
  for (const auto& p : paths) {
    Module m;
    m.path = p;
    m.class_name = "C";
    if (!p.empty() && rng() % 3 != 0) m.parent = mx::common::parent_path(p);
    doc.modules.push_back(std::move(m));
  }
  for (size_t i = 1; i < doc.modules.size(); ++i)
    for (auto& m : doc.modules)
      if (m.path == mx::common::parent_path(doc.modules[i].path)) m.children.push_back(doc.modules[i].path);
  for (size_t i = 0; i < 3 * size; ++i) {
    hierarchy::NodeRecord r;
    r.name = "n" + std::to_string(i);
    r.index = static_cast<int64_t>(i);
    r.module = doc.modules[rng() % doc.modules.size()].path;
    doc.nodes.push_back(std::move(r));
  }
  return doc;
}

// One defect, or a reordering that takes the shortcuts away.
void mutate(Document& doc, std::mt19937& rng) {
  auto& mods = doc.modules;
  if (mods.size() < 2) return;  // nothing left to break
  Module& m = mods[rng() % mods.size()];
  switch (rng() % 11) {
    case 0:
      m.path += " x";
      break;  // not a module path
    case 1:
      m.path += "..z";
      break;  // an empty segment
    case 2:
      mods.push_back(mods[rng() % mods.size()]);
      break;  // a path twice
    case 3:
      mods.erase(mods.begin() + static_cast<long>(rng() % mods.size()));
      break;
    case 4:
      m.parent = "nowhere";
      break;
    case 5:
      m.parent = mods[rng() % mods.size()].path;
      break;  // perhaps not a prefix
    case 6:
      m.children.push_back("ghost.child");
      break;
    case 7:
      std::shuffle(m.children.begin(), m.children.end(), rng);
      break;
    case 8:
      std::shuffle(mods.begin(), mods.end(), rng);
      break;
    case 9:
      doc.nodes[rng() % doc.nodes.size()].module = "no.such";
      break;
    case 10:
      std::reverse(mods.begin(), mods.end());
      break;
  }
}

}  // namespace

TEST_CASE("module checks: the shortcuts answer as the plain rules, first message included") {
  std::mt19937 rng(1234);
  size_t accepted = 0, refused = 0;
  for (int round = 0; round < 3000; ++round) {
    Document doc = random_tree(rng, 2 + rng() % 40);
    const int defects = round % 4;  // a quarter of them untouched
    for (int d = 0; d < defects; ++d) mutate(doc, rng);
    const std::string expected = plain_check(doc);
    CAPTURE(round);
    CHECK(checked(doc) == expected);
    (expected.empty() ? accepted : refused) += 1;
  }
  // Both kinds were exercised.
  CHECK(accepted > 500);
  CHECK(refused > 500);
}

TEST_CASE("module checks: parent positions are the index's answers, in any order") {
  std::mt19937 rng(99);
  for (int round = 0; round < 1000; ++round) {
    Document doc = random_tree(rng, 2 + rng() % 60);
    if (round % 2) mutate(doc, rng);
    if (round % 3 == 0) std::shuffle(doc.modules.begin(), doc.modules.end(), rng);
    const ModuleIndex index(doc);
    const std::vector<size_t>& parents = index.parents();
    REQUIRE(parents.size() == doc.modules.size());
    for (size_t i = 0; i < doc.modules.size(); ++i) {
      const Module& m = doc.modules[i];
      const Module* p = m.path.empty() ? nullptr : index.find(hierarchy::parent_of(m));
      CHECK(parents[i] == (p ? index.position(*p) : ModuleIndex::kNone));
    }
  }
  // An index of some modules only answers for those.
  Document doc = random_tree(rng, 30);
  std::unordered_set<std::string_view> only = {"", "a"};
  const ModuleIndex some(doc.modules, only);
  CHECK_FALSE(some.complete());
  for (size_t i = 0; i < doc.modules.size(); ++i) {
    const std::string parent = doc.modules[i].path.empty() ? "-" : hierarchy::parent_of(doc.modules[i]);
    const bool known = parent == "" || parent == "a";
    CHECK((some.parents()[i] != ModuleIndex::kNone) == (known && some.contains(parent)));
  }
}

TEST_CASE("module checks: set_hierarchy keeps its index with the document, never with a copy") {
  mx_model model;
  model.proto() = testing::tiny_net();
  model::set_hierarchy(model, hierarchy::parse_document_text(testing::tiny_net_hierarchy(), "h"), "h");
  const ModuleIndex* kept = model.hierarchy.module_index();
  REQUIRE(kept != nullptr);
  CHECK(kept->covers(model.hierarchy.modules));
  CHECK(kept->find("fc") == &model.hierarchy.modules[1]);
  CHECK(kept->parents().size() == model.hierarchy.modules.size());

  Document copy = model.hierarchy;
  CHECK(copy.module_index() == nullptr);
  Document assigned;
  assigned = model.hierarchy;
  CHECK(assigned.module_index() == nullptr);

  // A move takes it along (the modules' storage moves with it).
  Document moved = std::move(model.hierarchy);
  CHECK(moved.module_index() == kept);
  // Modules that are no longer the indexed vector get none.
  moved.modules.push_back(moved.modules.back());
  CHECK(moved.module_index() == nullptr);
  moved.modules.pop_back();
  moved.keep_module_index(nullptr);
  CHECK(moved.module_index() == nullptr);
}
