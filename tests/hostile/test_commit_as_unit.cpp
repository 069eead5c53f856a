// Output sets committed at the same moment to the same files (threads of
// one process here; processes take the same lock): the files left must all
// come from one commit. Each round, every thread stages a model, data file
// and sidecar holding its own mark, waits until all are staged, then
// commits; the three files on disk must then carry one mark. Linked against
// the internal view of the core (util/output_set.hpp).
#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "util/output_set.hpp"

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("output sets committed together to one place leave one set's files") {
  const fs::path dir = fs::temp_directory_path() / ("mx_commit_unit_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string names[3] = {(dir / "m.onnx").string(), (dir / "m.onnx.data").string(),
                                (dir / "m.hierarchy.json").string()};
  constexpr int kThreads = 4, kRounds = 150;
  int mixed = 0;
  for (int round = 0; round < kRounds; ++round) {
    std::atomic<int> staged{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        mx::OutputSet set;
        const std::string mark = "round " + std::to_string(round) + " thread " + std::to_string(t);
        for (const auto& name : names) set.add(name).write(mark);
        staged.fetch_add(1);
        while (staged.load() < kThreads) std::this_thread::yield();
        set.commit();
      });
    for (auto& t : threads) t.join();
    const std::string first = read(names[0]);
    if (read(names[1]) != first || read(names[2]) != first) ++mixed;
  }
  // Nothing else left: no temporaries, no backups.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  fs::remove_all(dir);
  CHECK(mixed == 0);
  CHECK(files == 3);
}
