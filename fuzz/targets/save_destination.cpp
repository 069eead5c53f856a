// The multi-file save path (mx_model_save_file: model + sidecar + external
// data) into hostile destinations. Byte 0 picks what already sits at each
// of the three targets (nothing, an old file, a directory, a symlink to a
// victim outside, a FIFO), byte 1 the save options and a file size limit
// (RLIMIT_FSIZE: a full disk), the rest is a model (TinyNet when it does
// not load). The oracle (issue 16): a failed save changes no target and
// leaves no temporary; a successful one loads back; the victim behind a
// symlink is never written; never MX_ERR_INTERNAL.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fixture_model.hpp"
#include "fuzz_common.hpp"

namespace fs = std::filesystem;

namespace {

enum Kind { kNone, kOld, kDir, kLink, kFifo };

const fs::path& scratch() {
  static const fs::path dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "mx_fuzz_save_XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) mxfuzz::finding("setup", "mkdtemp failed");
    // Removed at exit (each run left one in /tmp). A copy of the path: the
    // handler runs after this function's static is destroyed.
    static std::string made;
    made = tmpl;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(made, ec);
    });
    ::signal(SIGXFSZ, SIG_IGN);  // over RLIMIT_FSIZE, write() fails with EFBIG
    return fs::path(tmpl);
  }();
  return dir;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void put(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

// What a target looked like before the save, to compare after a failure.
struct Before {
  Kind kind;
  std::string content;
};

Before plant(const fs::path& target, Kind kind, const fs::path& victim) {
  switch (kind) {
    case kOld:
      put(target, "old " + target.filename().string());
      break;
    case kDir:
      fs::create_directory(target);
      break;
    case kLink:
      fs::create_symlink(victim, target);
      break;
    case kFifo:
      ::mkfifo(target.c_str(), 0644);
      break;
    case kNone:
      break;
  }
  return {kind, kind == kOld ? slurp(target) : std::string()};
}

bool unchanged(const fs::path& target, const Before& b) {
  const auto st = fs::symlink_status(target);
  switch (b.kind) {
    case kNone:
      return !fs::exists(st);
    case kOld:
      return fs::is_regular_file(st) && slurp(target) == b.content;
    case kDir:
      return fs::is_directory(st);
    case kLink:
      return fs::is_symlink(st);
    case kFifo:
      return fs::is_fifo(st);
  }
  return false;
}

bool leftovers(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename();
    if (n.find(".tmp-") != std::string::npos || n.find(".orig-") != std::string::npos) return true;
  }
  return false;
}

mx_model* model_from(const uint8_t* data, size_t size) {
  mx_model* m = nullptr;
  if (size > 0 && mxfuzz::ok(mx_model_load_bytes(data, size, &m), "mx_model_load_bytes")) return m;
  const std::string tiny = mx::testing::tiny_net_bytes();
  if (!mxfuzz::ok(mx_model_load_bytes(tiny.data(), tiny.size(), &m), "load TinyNet"))
    mxfuzz::finding("setup", "TinyNet does not load");
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2 || size > mxfuzz::kMaxInput) return 0;
  const fs::path dir = scratch() / "out";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path victim = scratch() / "victim";
  put(victim, "victim");
  const fs::path targets[3] = {dir / "o.onnx", dir / "o.hierarchy.json", dir / "o.onnx.data"};
  std::vector<Before> before;
  for (int i = 0; i < 3; ++i)
    before.push_back(
        plant(targets[i],
              static_cast<Kind>(((data[0] >> (2 * i)) & 3) + (i == 1 && (data[0] & 0x40) ? 1 : 0)), victim));
  mx_model* model = model_from(data + 2, size - 2);
  static const char* const kOptions[] = {"{\"check\":false}", "{\"check\":false,\"external_data\":true}",
                                         "{\"check\":false,\"sidecar\":false}",
                                         "{\"check\":false,\"tag_storage\":\"doc_string\"}"};
  const char* options = kOptions[data[1] & 3];
  rlimit old_limit{};
  ::getrlimit(RLIMIT_FSIZE, &old_limit);
  const bool limited = data[1] & 4;
  if (limited) {
    rlimit small = old_limit;
    small.rlim_cur = 64u * ((data[1] >> 3) + 1);  // 64 B .. 2 KiB: a full disk
    ::setrlimit(RLIMIT_FSIZE, &small);
  }
  const bool saved = mxfuzz::ok(mx_model_save_file(model, targets[0].c_str(), options), "mx_model_save_file");
  if (limited) ::setrlimit(RLIMIT_FSIZE, &old_limit);
  mx_model_release(model);
  if (slurp(victim) != "victim") mxfuzz::finding("symlink", "the save wrote through a planted symlink");
  if (leftovers(dir)) mxfuzz::finding("temporary", "a temporary or backup file was left behind");
  if (!saved) {
    for (int i = 0; i < 3; ++i)
      if (!unchanged(targets[i], before[i]))
        mxfuzz::finding("all-or-nothing", "a failed save changed " + targets[i].string());
    return 0;
  }
  // Without a sidecar of its own, the model would be read back with what
  // sat at the sidecar's name before: nothing to compare.
  if ((data[1] & 3) == 2) return 0;
  mx_model* again = nullptr;
  mx_status* s = mx_model_load_file(targets[0].c_str(), &again);
  if (s) {
    const std::string msg = mx_status_message(s);
    mx_status_release(s);
    mxfuzz::finding("round trip", "a successful save does not load back: " + msg);
  }
  mx_model_release(again);
  return 0;
}
