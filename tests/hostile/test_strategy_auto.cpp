// Issue 16, item 9: a broken third-party strategy does not make the default
// `tag --strategy auto` fail — it is skipped with a warning naming it — but
// asking for it by name fails, naming it, and writes nothing.
#include <doctest/doctest.h>

#include "cli_run.hpp"
#include "fixture_model.hpp"
#include "hostile_support.hpp"

using namespace mx::hostile;

namespace {

// The bundled strategies, plus a directory holding one broken plugin.
struct ThirdParty {
  explicit ThirdParty(const Scratch& s, const char* library, const char* as) : dir(s.root() / "third_party") {
    fs::create_directories(dir);
    fs::copy_file(library, dir / as);
    plugin_path = std::string(MX_TEST_PLUGIN_DIR) + ":" + dir.string();
  }
  fs::path dir;
  std::string plugin_path;
};

}  // namespace

TEST_CASE("9. tag --strategy auto skips a strategy whose runs fail, naming it") {
  Scratch s("auto_failing");
  write(s.models() / "m.onnx", mx::testing::tiny_net().SerializeAsString());
  const ThirdParty plugins(s, MX_TEST_FAILING_STRATEGY, "libvendor_failing.so");
  const std::string in = (s.models() / "m.onnx").string(), out = (s.out() / "o.onnx").string();

  const CliRun as_auto = run_cli({"tag", in, "-o", out}, plugins.plugin_path, s.root());
  CHECK_MESSAGE(as_auto.exit_code == 0, as_auto.err);
  CHECK_MESSAGE(contains(as_auto.err, "warning: strategy 'failing' skipped under --strategy auto"),
                as_auto.err);
  CHECK_MESSAGE(contains(as_auto.err, "the model is too interesting"), as_auto.err);
  CHECK(fs::exists(out));
  for (const auto& name : s.outputs()) fs::remove(s.out() / name);  // model and sidecar

  const CliRun by_name =
      run_cli({"tag", in, "-o", out, "--strategy", "failing"}, plugins.plugin_path, s.root());
  CHECK(by_name.exit_code == 1);
  CHECK_MESSAGE(contains(by_name.err, "'failing'"), by_name.err);
  CHECK_MESSAGE(contains(by_name.err, "the model is too interesting"), by_name.err);
  CHECK(s.outputs().empty());
}

TEST_CASE("9. tag --strategy auto skips a strategy whose answer is not JSON, naming it") {
  Scratch s("auto_malformed");
  write(s.models() / "m.onnx", mx::testing::tiny_net().SerializeAsString());
  const ThirdParty plugins(s, MX_TEST_MALFORMED_STRATEGY, "libvendor_malformed.so");
  const std::string in = (s.models() / "m.onnx").string(), out = (s.out() / "o.onnx").string();

  const CliRun as_auto = run_cli({"tag", in, "-o", out}, plugins.plugin_path, s.root());
  CHECK_MESSAGE(as_auto.exit_code == 0, as_auto.err);
  CHECK_MESSAGE(contains(as_auto.err, "warning: strategy 'malformed-json' skipped"), as_auto.err);
  CHECK(fs::exists(out));
  for (const auto& name : s.outputs()) fs::remove(s.out() / name);  // model and sidecar

  const CliRun by_name =
      run_cli({"tag", in, "-o", out, "--strategy", "malformed-json"}, plugins.plugin_path, s.root());
  CHECK(by_name.exit_code == 1);
  CHECK_MESSAGE(contains(by_name.err, "'malformed-json'"), by_name.err);
  CHECK(s.outputs().empty());
}
