// shows_repeated_calls against its definition, on random files: would
// modules_shown_by_file read any scope as a repeated call? (It skips the
// prefixes a node shares with the previous one; this holds the shortcut to
// the plain reading of every prefix of every path.)
#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "file_modules.hpp"

namespace {

std::string parent_of(const std::string& path) {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}

std::string last_of(const std::string& path) {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

void add_prefixes(const std::string& path, std::set<std::string>& to) {
  for (size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', dot + 1))
    to.insert(path.substr(0, dot));
  to.insert(path);
}

// The definition, read literally (file_modules.hpp): every module the
// names and named initializers reach, with ancestors; a path whose last
// step is `X_N`, that owns no parameter and whose sibling `X` is a module.
bool definition(const std::vector<std::string_view>& names, const std::vector<std::string_view>& inits) {
  std::set<std::string> all, owners;
  for (std::string_view init : inits) {
    const std::string owner = parent_of(std::string(init));
    if (std::string(init).find("::") != std::string::npos || owner.empty()) continue;
    add_prefixes(owner, all);
    add_prefixes(owner, owners);
  }
  std::vector<std::string_view> steps;
  std::string path;
  for (std::string_view name : names)
    if (mx::scope::scope_path_of(name, steps, path)) add_prefixes(path, all);
  for (const std::string& p : all) {
    const std::string base(mx::scope::repeated_call_base(last_of(p)));
    if (base.empty() || owners.count(p)) continue;
    const std::string parent = parent_of(p);
    if (all.count(parent.empty() ? base : parent + "." + base)) return true;
  }
  return false;
}

std::string random_scope(std::mt19937& rng, const std::string& previous) {
  static const std::vector<std::string> steps = {"a",  "b",    "relu", "relu_1", "relu_2",
                                                 "ln", "ln_1", "x_10", "h"};
  std::vector<std::string> parts;
  // Often a neighbour of the previous scope: the same, or a prefix of it
  // with new steps after (graph order).
  if (!previous.empty() && rng() % 3 != 0) {
    size_t start = 0;
    for (size_t end = previous.find('/', 1); end != std::string::npos; end = previous.find('/', start + 1)) {
      parts.push_back(previous.substr(start + 1, end - start - 1));
      start = end;
    }
    parts.push_back(previous.substr(start + 1));
    parts.resize(rng() % (parts.size() + 1));
  }
  for (size_t extra = rng() % 3 + (parts.empty() ? 1 : 0); extra > 0; --extra)
    parts.push_back(steps[rng() % steps.size()]);
  std::string scope;
  for (const auto& p : parts) scope += "/" + p;
  return scope;
}

}  // namespace

TEST_CASE("shows_repeated_calls: the same answer as its definition on random files") {
  std::mt19937 rng(20261126);
  int repeated = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<std::string> names, inits;
    std::string scope;
    for (size_t n = rng() % 12; n > 0; --n) {
      if (rng() % 2 == 0 || scope.empty()) scope = random_scope(rng, scope);
      names.push_back(rng() % 10 == 0 ? "Constant_" + std::to_string(n) : scope + "/Op");
    }
    for (size_t n = rng() % 4; n > 0; --n) {
      std::string owner = random_scope(rng, "");
      for (char& c : owner) c = c == '/' ? '.' : c;
      inits.push_back(rng() % 4 == 0 ? "onnx::MatMul_" + std::to_string(n) : owner.substr(1) + ".weight");
    }
    const std::vector<std::string_view> name_views(names.begin(), names.end()),
        init_views(inits.begin(), inits.end());
    const bool expected = definition(name_views, init_views);
    repeated += expected;
    CAPTURE(round);
    CHECK(mx::scope::shows_repeated_calls(name_views, init_views) == expected);
  }
  // Both answers occur often enough for the comparison to mean something.
  CHECK(repeated > 300);
  CHECK(repeated < 2700);
}
