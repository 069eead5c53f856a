// What a killed run leaves (SIGKILL: no handler runs) is removed by the
// next run that writes there: hidden temporaries next to the output and
// the private scratch directory of an export, recognised by the dead
// process id in their names and an age of 10 minutes; backups (".orig-")
// of a dead process's commit, found under the directory's lock, when
// their target is there. Fresh temporaries, live processes' leftovers and
// backups whose target is gone (maybe the only copy) stay.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "pt2_cli.hpp"

using namespace mx::hostile;

namespace {

pid_t dead_pid() {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

void make_old(const fs::path& p) {
  const timespec times[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};
  REQUIRE(::utimensat(AT_FDCWD, p.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0);
}

}  // namespace

TEST_CASE("a save removes the stale temporaries and backups of a killed run, and only those") {
  Scratch s("stale_temporaries");
  const std::string dead = std::to_string(dead_pid()), live = std::to_string(::getpid());
  const fs::path stale = s.out() / (".m.onnx.tmp-" + dead + "-aaaaaaaaaaaa"),
                 stale_data = s.out() / (".m.onnx.data.tmp-" + dead + "-bbbbbbbbbbbb"),
                 fresh = s.out() / (".m.onnx.tmp-" + dead + "-cccccccccccc"),
                 mine = s.out() / (".m.onnx.tmp-" + live + "-dddddddddddd"),
                 backup = s.out() / (".m.onnx.orig-" + dead + "-eeeeeeeeeeee"),
                 other = s.out() / (".other.onnx.tmp-" + dead + "-ffffffffffff");
  for (const auto& p : {stale, stale_data, fresh, mine, backup, other}) write(p, "left over");
  for (const auto& p : {stale, stale_data, mine, backup, other}) make_old(p);
  // Backups of m.onnx.data (its target is written by this export too), of
  // a file that is gone, and of a live process's commit.
  const fs::path data_backup = s.out() / (".m.onnx.data.orig-" + dead + "-gggggggggggg"),
                 only_copy = s.out() / (".gone.onnx.orig-" + dead + "-hhhhhhhhhhhh"),
                 live_backup = s.out() / (".m.onnx.orig-" + live + "-iiiiiiiiiiii");
  for (const auto& p : {data_backup, only_copy, live_backup}) write(p, "original");

  const CliRun r = export_pt2(s, pt2_fixture("tiny_mlp"), {"--external-data"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_FALSE(fs::exists(stale));
  CHECK_FALSE(fs::exists(stale_data));
  CHECK(fs::exists(fresh));         // may belong to a writer in another pid namespace
  CHECK(fs::exists(mine));          // a live process
  CHECK(fs::exists(other));         // another output's
  CHECK_FALSE(fs::exists(backup));  // its target m.onnx is there
  CHECK_FALSE(fs::exists(data_backup));
  CHECK(fs::exists(only_copy));    // gone.onnx is not: the only copy
  CHECK(fs::exists(live_backup));  // a commit still running
}

TEST_CASE("an export removes the stale scratch directory of a killed export") {
  Scratch s("stale_scratch");
  const fs::path tmp = s.root() / "tmp";
  fs::create_directories(tmp);
  const fs::path stale = tmp / ("modelexport-export-" + std::to_string(dead_pid()) + "-Ab12Cd");
  const fs::path foreign = tmp / "modelexport-export-Zz98Yx";  // an old unnamed one: not ours to judge
  fs::create_directories(stale);
  fs::create_directories(foreign);
  write(stale / "m.onnx.data", "weights");
  make_old(stale);
  make_old(foreign);

  const char* before = std::getenv("TMPDIR");
  const std::string saved = before ? before : "";
  ::setenv("TMPDIR", tmp.c_str(), 1);
  mx_model* m = nullptr;
  const Result r = take(mx_registry_export(registry(), "torch_export", pt2_fixture("tiny_mlp").c_str(),
                                           "{\"external_data\":true}", &m),
                        "export");
  if (before) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
  CHECK_MESSAGE(r.code == MX_OK, r.message);
  mx_model_release(m);
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(foreign));
  size_t left = 0;
  for (const auto& e : fs::directory_iterator(tmp)) left += e.path() != foreign;
  CHECK(left == 0);  // this export's own scratch directory is gone too
}

namespace {

// Entries of $TMPDIR seen while the frontend lowers.
int32_t count_tmpdir(const mx_progress_event* event, void* seen) {
  if (std::string(event->stage) == "lower") {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(std::getenv("TMPDIR"))) ++n;
    *static_cast<size_t*>(seen) = std::max(*static_cast<size_t*>(seen), n);
  }
  return 0;
}

size_t scratch_dirs_during_export(const fs::path& tmp, const char* options) {
  const char* before = std::getenv("TMPDIR");
  const std::string saved = before ? before : "";
  ::setenv("TMPDIR", tmp.c_str(), 1);
  size_t seen = 0;
  mx_progress progress{};
  progress.struct_size = sizeof(mx_progress);
  progress.callback = count_tmpdir;
  progress.user_data = &seen;
  mx_model* m = nullptr;
  const Result r =
      take(mx_registry_export_with_progress(registry(), "torch_export", pt2_fixture("tiny_mlp").c_str(),
                                            options, &progress, &m),
           "export");
  if (before) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
  CHECK_MESSAGE(r.code == MX_OK, r.message);
  mx_model_release(m);
  return seen;
}

}  // namespace

TEST_CASE("an export that writes no file creates no scratch directory") {
  Scratch s("no_scratch");
  const fs::path tmp = s.root() / "tmp";
  fs::create_directories(tmp);
  CHECK(scratch_dirs_during_export(tmp, "{\"external_data\":false}") == 0);
  CHECK(scratch_dirs_during_export(tmp, "{\"external_data\":true}") ==
        1);  // the test sees one when there is one
}
