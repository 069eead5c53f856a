// Concurrent `export --external-data` runs to one destination: whatever
// order their commits take, the files left (model, data file, sidecar) must
// all come from one run. Two models, exported alone first for reference;
// then rounds of runs started together, alternating the models. End to
// end, through the CLI; the commits of such small outputs seldom overlap
// (without the directory lock this test did not catch a mix in 36 rounds),
// so test_commit_as_unit.cpp, which makes them overlap, is the sharp one.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>

#include "pt2_cli.hpp"

using namespace mx::hostile;

namespace {

using Files = std::map<std::string, std::string>;  // name -> bytes

Files files_in(const fs::path& dir) {
  Files out;
  for (const auto& e : fs::directory_iterator(dir)) out[e.path().filename()] = read(e.path());
  return out;
}

std::vector<std::string> export_args(const fs::path& model, const fs::path& out) {
  return {"export", model.string(), "-o", out.string(), "--external-data", "-q"};
}

pid_t spawn_cli(const std::vector<std::string>& args) {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::setenv("MODELEXPORT_PLUGIN_PATH", MX_TEST_PLUGIN_DIR, 1);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    std::vector<char*> argv{const_cast<char*>(MX_TEST_CLI)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(MX_TEST_CLI, argv.data());
    ::_exit(127);
  }
  return child;
}

}  // namespace

TEST_CASE("concurrent exports with external data to one destination leave one run's files") {
  Scratch s("concurrent_saves");
  const fs::path models[2] = {pt2_fixture("tiny_mlp"), pt2_fixture("small_cnn")};
  Files reference[2];
  for (int k = 0; k < 2; ++k) {
    const fs::path dir = s.root() / ("ref" + std::to_string(k));
    fs::create_directories(dir);
    REQUIRE(run_cli(export_args(models[k], dir / "m.onnx"), MX_TEST_PLUGIN_DIR, s.root()).exit_code == 0);
    reference[k] = files_in(dir);
    REQUIRE(reference[k].count("m.onnx.data") == 1);
  }
  REQUIRE(reference[0] != reference[1]);

  constexpr int kRounds = 12, kRuns = 4;
  int mixed = 0;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<pid_t> children;
    for (int k = 0; k < kRuns; ++k)
      children.push_back(spawn_cli(export_args(models[(round + k) % 2], s.out() / "m.onnx")));
    for (pid_t c : children) {
      int status = 0;
      ::waitpid(c, &status, 0);
      CHECK(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 0);
    }
    const Files now = files_in(s.out());
    if (now != reference[0] && now != reference[1]) {
      ++mixed;
      std::string names;
      for (const auto& [name, bytes] : now) names += name + " ";
      MESSAGE("round " << round << ": files from more than one run: " << names);
    }
  }
  CHECK(mixed == 0);
}
