// A strategy answering through the host's table (plugin ABI 1.2) with a
// size of SIZE_MAX, a module path that is not UTF-8, or node 2^64-1: each
// is a refusal naming what was wrong, never an exception through the C
// table ("internal error: basic_string::_M_create"), a raw path kept in
// node metadata, or "node -1".
#include <doctest/doctest.h>

#include <cstdlib>

#include "fixture_model.hpp"
#include "hostile_support.hpp"

using namespace mx::hostile;

namespace {

mx_registry* registry_with_hostile_plugin() {
  static mx_registry* r = [] {
    mx_registry* reg = nullptr;
    const std::string opts = std::string("{\"discover\":false,\"plugin_dirs\":[\"") + MX_TEST_PLUGIN_DIR +
                             "\",\"" + MX_TEST_HOSTILE_PLUGIN_DIR + "\"]}";
    mx_status* s = mx_registry_create(opts.c_str(), &reg);
    REQUIRE_MESSAGE(s == nullptr, mx_status_message(s));
    return reg;
  }();
  return r;
}

Result tag_with(const char* mode) {
  ::setenv("MX_HOSTILE_ANSWER", mode, 1);
  mx_model* m = nullptr;
  const std::string bytes = mx::testing::tiny_net().SerializeAsString();
  REQUIRE(mx_model_load_bytes(bytes.data(), bytes.size(), &m) == nullptr);
  Result r = take(mx_registry_tag(registry_with_hostile_plugin(), "hostile-answers", m, nullptr), "tag");
  CHECK_FALSE(mx_model_has_hierarchy(m));
  mx_model_release(m);
  ::unsetenv("MX_HOSTILE_ANSWER");
  return r;
}

}  // namespace

TEST_CASE("answer table: a module path of SIZE_MAX bytes is refused before it is read") {
  const Result r = tag_with("path_size_max");
  CHECK(r.code == MX_ERR_PLUGIN);
  CHECK_MESSAGE(r.message.find("a module path of 18446744073709551615 bytes (the limit is 1048576)") !=
                    std::string::npos,
                r.message);
}

TEST_CASE("answer table: a class of SIZE_MAX bytes is refused") {
  const Result r = tag_with("class_size_max");
  CHECK(r.code == MX_ERR_PLUGIN);
  CHECK_MESSAGE(r.message.find("18446744073709551615 bytes (the limit is 1048576)") != std::string::npos,
                r.message);
}

TEST_CASE("answer table: a module path that is not UTF-8 is refused") {
  const Result r = tag_with("path_not_utf8");
  CHECK(r.code == MX_ERR_PLUGIN);
  CHECK_MESSAGE(r.message.find("(not UTF-8)") != std::string::npos, r.message);
}

TEST_CASE("answer table: node 2^64-1 is reported as itself") {
  const Result r = tag_with("node_max");
  CHECK(r.code == MX_ERR_PLUGIN);
  CHECK_MESSAGE(r.message.find("node 18446744073709551615 is out of range") != std::string::npos, r.message);
}

TEST_CASE("reader and answer tables called after their run (from destroy) are refused, not a crash") {
  Scratch s("late_tables");
  const fs::path out = s.root() / "late.txt";
  ::setenv("MX_HOSTILE_LATE_OUT", out.c_str(), 1);
  ::setenv("MX_HOSTILE_ANSWER", "late", 1);
  mx_registry* reg = nullptr;
  const std::string opts =
      std::string("{\"discover\":false,\"plugin_dirs\":[\"") + MX_TEST_HOSTILE_PLUGIN_DIR + "\"]}";
  REQUIRE(mx_registry_create(opts.c_str(), &reg) == nullptr);
  mx_model* m = nullptr;
  const std::string bytes = mx::testing::tiny_net().SerializeAsString();
  REQUIRE(mx_model_load_bytes(bytes.data(), bytes.size(), &m) == nullptr);
  mx_status* tagged = mx_registry_tag(reg, "hostile-answers", m, nullptr);
  CHECK_MESSAGE(tagged == nullptr, mx_status_message(tagged));
  mx_status_release(tagged);
  mx_model_release(m);
  mx_registry_release(reg);  // the plugin's destroy calls the kept tables
  ::unsetenv("MX_HOSTILE_ANSWER");
  ::unsetenv("MX_HOSTILE_LATE_OUT");
  // An empty graph and a refused answer (MX_ERR_INVALID_ARGUMENT).
  CHECK(read(out) == "count=0 name=null assign=" + std::to_string(MX_ERR_INVALID_ARGUMENT) + "\n");
}
