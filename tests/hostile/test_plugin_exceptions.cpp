// A C++ plugin letting an exception escape create(), run() or destroy()
// through the C ABI (plugin.h forbids it; tests/hostile/plugins/
// throwing_strategy.cpp does it anyway): the host reports the plugin's
// failure, naming the function, and never terminates.
#include <doctest/doctest.h>

#include <cstdlib>

#include "fixture_model.hpp"
#include "cli_run.hpp"

using namespace mx::hostile;

namespace {

struct ThrowIn {
  explicit ThrowIn(const char* function) { ::setenv("MX_HOSTILE_THROW", function, 1); }
  ~ThrowIn() { ::unsetenv("MX_HOSTILE_THROW"); }
};

mx_registry* empty_registry() {
  mx_registry* reg = nullptr;
  mx_status* s = mx_registry_create("{\"discover\":false}", &reg);
  REQUIRE_MESSAGE(s == nullptr, mx_status_message(s));
  return reg;
}

Result tag_with_throwing(mx_registry* reg) {
  mx_model* m = nullptr;
  const std::string bytes = mx::testing::tiny_net().SerializeAsString();
  REQUIRE(mx_model_load_bytes(bytes.data(), bytes.size(), &m) == nullptr);
  Result r = take(mx_registry_tag(reg, "hostile-throwing", m, nullptr), "tag");
  CHECK_FALSE(mx_model_has_hierarchy(m));
  mx_model_release(m);
  return r;
}

}  // namespace

TEST_CASE("a plugin exception escaping run() is the plugin's failure, named") {
  mx_registry* reg = empty_registry();
  REQUIRE(mx_registry_load_plugin(reg, MX_TEST_THROWING_PLUGIN) == nullptr);
  {
    ThrowIn in("run");
    const Result r = tag_with_throwing(reg);
    CHECK(r.code == MX_ERR_PLUGIN);
    CHECK_MESSAGE(contains(r.message,
                           "plugin 'hostile-throwing' failed: an exception escaped run() through the C ABI "
                           "(thrown by run)"),
                  r.message);
  }
  {
    ThrowIn in("run_int");  // not a std::exception
    const Result r = tag_with_throwing(reg);
    CHECK(r.code == MX_ERR_PLUGIN);
    CHECK_MESSAGE(contains(r.message, "an exception escaped run() through the C ABI"), r.message);
  }
  mx_registry_release(reg);
}

TEST_CASE("a plugin exception escaping create() refuses the plugin, named") {
  mx_registry* reg = empty_registry();
  ThrowIn in("create");
  const Result r = take(mx_registry_load_plugin(reg, MX_TEST_THROWING_PLUGIN), "load");
  CHECK(r.code == MX_ERR_PLUGIN);
  CHECK_MESSAGE(contains(r.message, "an exception escaped create() through the C ABI (thrown by create)"),
                r.message);
  mx_registry_release(reg);
}

TEST_CASE("a plugin exception escaping destroy() does not terminate the host") {
  mx_registry* reg = empty_registry();
  REQUIRE(mx_registry_load_plugin(reg, MX_TEST_THROWING_PLUGIN) == nullptr);
  ThrowIn in("destroy");
  mx_registry_release(reg);  // reached the end of the test: no std::terminate
  CHECK(true);
}
