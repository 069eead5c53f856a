// Issue 16, item 1: OutputSet::commit when the second rename fails — the
// first file is already in place and must be undone: the original comes
// back, a file that did not exist is removed, and no temporary or backup
// is left. The failure is real, not simulated: the second file's staged
// temporary is removed between staging and commit (as a cleaner of stale
// temporaries would), so its rename(2) fails with ENOENT after the first
// rename succeeded. Linked against the internal view of the core.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "util/error.hpp"
#include "util/output_set.hpp"

namespace fs = std::filesystem;
using mx::Error;
using mx::OutputSet;

namespace {

struct Dir {
  explicit Dir(const char* name)
      : path(fs::temp_directory_path() /
             (std::string("mx_rollback_") + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
  fs::path path;
};

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Names in `dir`, sorted.
std::vector<std::string> names(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

// Stages model + sidecar, removes the sidecar's temporary, commits.
std::string commit_with_second_rename_failing(const fs::path& dir) {
  OutputSet out;
  out.add((dir / "m.onnx").string()).write("new model");
  auto& sidecar = out.add((dir / "m.hierarchy.json").string());
  sidecar.write("new sidecar");
  REQUIRE(fs::remove(sidecar.temp()));
  try {
    out.commit();
  } catch (const Error& e) {
    CHECK(e.code() == MX_ERR_IO);
    return e.what();
  }
  FAIL("commit succeeded without the sidecar's temporary");
  return "";
}

}  // namespace

TEST_CASE("a failed second rename restores the first file's original") {
  Dir d("restore");
  write(d.path / "m.onnx", "old model");
  write(d.path / "m.hierarchy.json", "old sidecar");
  const std::string message = commit_with_second_rename_failing(d.path);
  CHECK_MESSAGE(message.find((d.path / "m.hierarchy.json").string() +
                             ": cannot rename the temporary file into place") != std::string::npos,
                message);
  CHECK(read(d.path / "m.onnx") == "old model");
  CHECK(read(d.path / "m.hierarchy.json") == "old sidecar");
  CHECK(names(d.path) == std::vector<std::string>{"m.hierarchy.json", "m.onnx"});
}

TEST_CASE("a failed second rename removes a first file that did not exist before") {
  Dir d("remove");
  commit_with_second_rename_failing(d.path);
  CHECK(names(d.path).empty());
}

TEST_CASE("a failed second rename puts back a symlink that was the first target") {
  // The original of m.onnx is a symlink to a file outside: restored as the
  // link itself, its target never written.
  Dir d("symlink");
  write(d.path / "target", "outside");
  fs::create_symlink(d.path / "target", d.path / "m.onnx");
  commit_with_second_rename_failing(d.path);
  CHECK(fs::is_symlink(d.path / "m.onnx"));
  CHECK(read(d.path / "target") == "outside");
  CHECK(names(d.path) == std::vector<std::string>{"m.onnx", "target"});
}
