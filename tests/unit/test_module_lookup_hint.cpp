// ModuleLookup::find(path, hint): the one place that checks a position
// hint (a record's module_at, a module's parent_at) before trusting it. A
// right hint is the answer, any other (another module, past the end, none)
// gives what find(path) gives, for modules in path order and in any other.
#include <doctest/doctest.h>

#include <algorithm>

#include "hierarchy/document.hpp"
#include "model/module_lookup.hpp"

using namespace mx;

namespace {

std::vector<hierarchy::Module> modules_of(std::initializer_list<const char*> paths) {
  std::vector<hierarchy::Module> modules;
  for (const char* p : paths) {
    hierarchy::Module m;
    m.path = p;
    modules.push_back(m);
  }
  return modules;
}

void check_hints(const std::vector<hierarchy::Module>& modules) {
  const hierarchy::ModuleIndex index(modules);
  std::vector<std::string> asked;
  for (const auto& m : modules) asked.push_back(m.path);
  asked.push_back("no.such.module");
  model::ModuleLookup lookup(modules);
  for (const std::string& path : asked) {
    const hierarchy::Module* found = index.find(path);
    const size_t right = found ? index.position(*found) : model::ModuleLookup::kNone;
    for (size_t hint :
         {right, (right + 1) % modules.size(), modules.size(), modules.size() + 7, hierarchy::kNoPosition}) {
      CAPTURE(path);
      CAPTURE(hint);
      CHECK(lookup.find(path, hint) == right);
    }
  }
}

}  // namespace

TEST_CASE("module lookup: hints in path order and in another order") {
  check_hints(modules_of({"", "a", "a.b", "a.b.c", "a.d", "e"}));
  check_hints(modules_of({"e", "a.d", "", "a.b.c", "a", "a.b"}));
}

TEST_CASE("module lookup: a hint naming a repeated path's second module is taken") {
  // No check accepts such a document; the hint is trusted as documented
  // (hierarchy::Module::parent_at), a lookup without one gives the first.
  const auto modules = modules_of({"", "a", "a", "b"});
  model::ModuleLookup lookup(modules);
  CHECK(lookup.find("a", 2) == 2);
  CHECK(lookup.find("a", 3) == 1);
  CHECK(lookup.find("a") == 1);
}
