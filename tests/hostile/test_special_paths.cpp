// Directories, FIFOs and symlinks where a file is expected, and a save
// killed midway: refused or replaced before anything is written through,
// no file half-changed, no temporary left. Through the public C API (the
// CLI cases are in tests/cli).
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "mx/onnx_proto.hpp"

#include "c_api_steps.hpp"
#include "fixture_model.hpp"

using namespace mx::hostile;
using mx::testing::tiny_net;

TEST_CASE("a sidecar path that is a directory: the model is not replaced") {
  Scratch s("paths_sidecar_dir");
  write(s.models() / "m.onnx", bytes_of(tiny_net()));
  write(s.out() / "o.onnx", "previous model");
  fs::create_directories(s.out() / "o.hierarchy.json");
  mx_model* m = load_tagged(s.models() / "m.onnx");
  auto r = save(m, s.out() / "o.onnx");
  CHECK(r.code == MX_ERR_IO);
  CHECK(r.message.find("o.hierarchy.json: is a directory") != std::string::npos);
  CHECK(r.message.find("no file was changed") != std::string::npos);
  CHECK(read(s.out() / "o.onnx") == "previous model");
  CHECK(no_leftovers(s.out()));
  mx_model_release(m);
}

TEST_CASE("with external data: an existing data file survives a failed save") {
  Scratch s("paths_data");
  write(s.models() / "m.onnx", bytes_of(tiny_net()));
  write(s.out() / "o.onnx.data", "previous data");
  fs::create_directories(s.out() / "o.hierarchy.json");
  mx_model* m = load_tagged(s.models() / "m.onnx");
  auto r = save(m, s.out() / "o.onnx", "{\"external_data\":true}");
  CHECK(r.code == MX_ERR_IO);
  CHECK(read(s.out() / "o.onnx.data") == "previous data");
  CHECK_FALSE(fs::exists(s.out() / "o.onnx"));
  CHECK(no_leftovers(s.out()));
  mx_model_release(m);
}

TEST_CASE("a FIFO at a target is refused before anything is written") {
  Scratch s("paths_fifo_target");
  write(s.models() / "m.onnx", bytes_of(tiny_net()));
  REQUIRE(::mkfifo((s.out() / "o.hierarchy.json").c_str(), 0644) == 0);
  mx_model* m = load_tagged(s.models() / "m.onnx");
  auto r = save(m, s.out() / "o.onnx");
  CHECK(r.code == MX_ERR_IO);
  CHECK(r.message.find("FIFO") != std::string::npos);
  CHECK_FALSE(fs::exists(s.out() / "o.onnx"));
  CHECK(no_leftovers(s.out()));
  mx_model_release(m);
}

TEST_CASE("SIGTERM during a save leaves no temporary file") {
  // A fresh process (the CLI): the test runner's own signal handlers would
  // keep the SDK's from being installed (it only takes default ones).
  Scratch s("paths_sigterm");
  // ~64 MB of weights: the write takes long enough to be interrupted.
  auto big = tiny_net();
  auto* w = big.mutable_graph()->add_initializer();
  w->set_name("padding");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(16 << 20);
  w->set_raw_data(std::string(size_t{64} << 20, '\1'));
  write(s.models() / "big.onnx", bytes_of(big));
  const std::string in = (s.models() / "big.onnx").string(), out = (s.out() / "o.onnx").string();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::setenv("MODELEXPORT_PLUGIN_PATH", MX_TEST_PLUGIN_DIR, 1);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
    ::execl(MX_TEST_CLI, MX_TEST_CLI, "tag", in.c_str(), "-o", out.c_str(), "--strategy", "scope",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait until a temporary exists, then kill the child in the middle.
  bool seen = false;
  for (int i = 0; i < 60000 && !seen; ++i) {
    seen = !no_leftovers(s.out());
    if (!seen) std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(seen);
  CHECK(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(no_leftovers(s.out()));
  CHECK_FALSE(fs::exists(s.out() / "o.onnx"));
}

TEST_CASE("a symlink at the destination is replaced, never written through") {
  Scratch s("paths_symlink");
  write(s.models() / "m.onnx", bytes_of(tiny_net()));
  write(s.root() / "victim", "do not touch");
  fs::create_symlink(s.root() / "victim", s.out() / "o.onnx");
  fs::create_symlink(s.root() / "victim", s.out() / "r.dot");
  mx_model* m = load_tagged(s.models() / "m.onnx");
  CHECK(save(m, s.out() / "o.onnx").code == MX_OK);
  mx_status* st = mx_write_file((s.out() / "r.dot").c_str(), "digraph {}", 10, nullptr);
  CHECK(st == nullptr);
  mx_status_release(st);
  CHECK(read(s.root() / "victim") == "do not touch");
  CHECK_FALSE(fs::is_symlink(s.out() / "o.onnx"));
  CHECK(read(s.out() / "r.dot") == "digraph {}");
  mx_model_release(m);
}

TEST_CASE("FIFOs where a file is expected: refused at once") {
  Scratch s("paths_fifo");
  REQUIRE(::mkfifo((s.models() / "in.onnx").c_str(), 0644) == 0);
  auto start = std::chrono::steady_clock::now();
  auto r = pipeline(s.models() / "in.onnx", s.out() / "o.onnx");
  CHECK(r.code == MX_ERR_IO);
  CHECK(r.message.find("FIFO") != std::string::npos);
  // The sidecar and a --hierarchy file.
  write(s.models() / "m.onnx", bytes_of(tiny_net()));
  REQUIRE(::mkfifo((s.models() / "m.hierarchy.json").c_str(), 0644) == 0);
  r = pipeline(s.models() / "m.onnx", s.out() / "o.onnx");
  CHECK(r.code == MX_ERR_IO);
  write(s.models() / "n.onnx", bytes_of(tiny_net()));
  REQUIRE(::mkfifo((s.models() / "h.json").c_str(), 0644) == 0);
  mx_model* m = load(s.models() / "n.onnx");
  const std::string opts = "{\"hierarchy\":\"" + (s.models() / "h.json").string() + "\"}";
  mx_status* st = mx_registry_tag(registry(), "scope", m, opts.c_str());
  CHECK(mx_status_code(st) == MX_ERR_IO);
  CHECK(std::string(mx_status_message(st)).find("FIFO") != std::string::npos);
  mx_status_release(st);
  mx_model_release(m);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}
