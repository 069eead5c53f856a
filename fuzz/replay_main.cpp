// Replays fuzz inputs without libFuzzer: each argument is a file or a
// directory of files, fed once to LLVMFuzzerTestOneInput. Used as the
// regression ctest of the corpus in fuzz/corpus/<target>/ under the normal
// (gcc) build and under scripts/test-sanitizers.sh.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

static void run_file(const fs::path& p, size_t& count) {
  std::ifstream in(p, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  ++count;
}

int main(int argc, char** argv) {
  size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    fs::path p(argv[i]);
    if (fs::is_directory(p)) {
      std::vector<fs::path> files;
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) run_file(f, count);
    } else if (fs::is_regular_file(p)) {
      run_file(p, count);
    } else {
      std::fprintf(stderr, "replay: %s: not a file or directory\n", argv[i]);
      return 2;
    }
  }
  std::printf("replayed %zu inputs without a finding\n", count);
  return count > 0 ? 0 : 1;
}
