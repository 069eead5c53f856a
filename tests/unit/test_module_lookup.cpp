// model/module_lookup answers what a hierarchy::ModuleIndex answers (the
// first module with a path, kNone for none; parents by explicit "parent"
// or by prefix) for modules in path order (neighbour guesses, binary
// search) and in any other order or with a repeated path (the index it
// falls back to), whatever order the paths are asked in.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "hierarchy/document.hpp"
#include "model/module_lookup.hpp"

using namespace mx;

namespace {

hierarchy::Module module(const std::string& path, std::optional<std::string> parent = std::nullopt) {
  hierarchy::Module m;
  m.path = path;
  m.parent = std::move(parent);
  return m;
}

size_t index_position(const hierarchy::ModuleIndex& index, std::string_view path) {
  const hierarchy::Module* m = index.find(path);
  return m ? index.position(*m) : hierarchy::ModuleIndex::kNone;
}

// Every path of the modules, a few that are none, in `order`, then every
// parent, asked of a fresh lookup and compared with the index.
void check_like_index(const std::vector<hierarchy::Module>& modules, unsigned seed) {
  const hierarchy::ModuleIndex index(modules);
  std::vector<std::string> asked;
  for (const auto& m : modules) asked.push_back(m.path);
  for (const char* none : {"zzz", "a.b.c.d.e", "", "encoder.layer.9", "encoder.layer.10.x"})
    asked.push_back(none);
  std::mt19937 rng(seed);
  for (int round = 0; round < 3; ++round) {
    model::ModuleLookup lookup(modules);
    for (const auto& path : asked) {
      CAPTURE(path);
      CHECK(lookup.find(path) == index_position(index, path));
    }
    for (size_t i = 0; i < modules.size(); ++i) {
      CAPTURE(modules[i].path);
      CHECK(lookup.parent(i) == index.parents()[i]);
    }
    std::shuffle(asked.begin(), asked.end(), rng);
  }
}

std::vector<hierarchy::Module> layers(int count) {
  std::vector<hierarchy::Module> modules = {module(""), module("encoder"), module("encoder.layer")};
  for (int k = 0; k < count; ++k) {
    const std::string layer = "encoder.layer." + std::to_string(k);
    modules.push_back(module(layer));
    modules.push_back(module(layer + ".act", layer));
    modules.push_back(module(layer + ".dense"));
  }
  return modules;
}

}  // namespace

TEST_CASE("module lookup: modules in path order, as tagging writes them") {
  auto modules = layers(40);
  std::sort(modules.begin(), modules.end(),
            [](const hierarchy::Module& a, const hierarchy::Module& b) { return a.path < b.path; });
  check_like_index(modules, 1);
  // An explicit parent that is not the prefix, and one that is no module.
  modules[7].parent = "encoder";
  modules[9].parent = "no.such.module";
  check_like_index(modules, 2);
  // Parent hints (hierarchy::Module::parent_at, as tagging sets them):
  // right ones, wrong ones and ones past the end give the same answers.
  const hierarchy::ModuleIndex plain(modules);
  for (size_t i = 0; i < modules.size(); ++i) {
    const size_t right = plain.parents()[i];
    modules[i].parent_at = i % 3 == 0 ? right : i % 3 == 1 ? (i * 7) % modules.size() : modules.size() + i;
  }
  check_like_index(modules, 7);
}

TEST_CASE("module lookup: modules in another order, or a path twice") {
  check_like_index(layers(40), 3);  // layer.10 after layer.9: not in path order
  auto repeated = layers(5);
  std::sort(repeated.begin(), repeated.end(),
            [](const hierarchy::Module& a, const hierarchy::Module& b) { return a.path < b.path; });
  // In order but not strictly: the first of the two must be the answer.
  repeated.insert(repeated.begin() + 6, repeated[6]);
  repeated[7].parent = "encoder";
  check_like_index(repeated, 4);
  check_like_index({}, 5);
  check_like_index({module("")}, 6);
}
