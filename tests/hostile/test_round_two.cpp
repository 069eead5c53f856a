// Issue 16, "Hostile inputs, round two": one case per defect, through the
// public C API (the CLI cases are in tests/cli). Each case failed before
// the fix.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "mx/onnx_proto.hpp"

#include "fixture_model.hpp"
#include "hostile_support.hpp"

using namespace mx::hostile;
using mx::testing::tiny_net;

namespace {

std::string bytes_of(const onnx::ModelProto& m) {
  return m.SerializeAsString();
}

mx_model* load(const fs::path& p) {
  mx_model* m = nullptr;
  mx_status* s = mx_model_load_file(p.c_str(), &m);
  REQUIRE_MESSAGE(s == nullptr, mx_status_message(s));
  return m;
}

mx_model* load_tagged(const fs::path& p) {
  mx_model* m = load(p);
  mx_status* s = mx_registry_tag(registry(), "scope", m, nullptr);
  REQUIRE_MESSAGE(s == nullptr, mx_status_message(s));
  return m;
}

Result save(const mx_model* m, const fs::path& out, const char* options = nullptr) {
  return take(mx_model_save_file(m, out.c_str(), options), "save");
}

// No temporary or backup name left in `dir` (".<name>.tmp-…", ".<name>.orig-…").
bool no_leftovers(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename();
    if (n.find(".tmp-") != std::string::npos || n.find(".orig-") != std::string::npos) return false;
  }
  return true;
}

std::string json_of(mx_status* (*fn)(const mx_model*, const char*, char**, size_t*), const mx_model* m) {
  char* text = nullptr;
  size_t n = 0;
  mx_status* s = fn(m, nullptr, &text, &n);
  REQUIRE_MESSAGE(s == nullptr, mx_status_message(s));
  std::string out(text, n);
  mx_free(text);
  return out;
}

std::string validate(const fs::path& p, mx_code* code = nullptr) {
  char* text = nullptr;
  size_t n = 0;
  mx_status* s = mx_validate_file(p.c_str(), nullptr, &text, &n);
  if (code) *code = mx_status_code(s);
  std::string out = s ? mx_status_message(s) : std::string(text, n);
  mx_status_release(s);
  mx_free(text);
  return out;
}

onnx::ModelProto unnamed_and_duplicate_net() {
  auto m = tiny_net();
  m.mutable_graph()->mutable_node(0)->clear_name();
  m.mutable_graph()->mutable_node(1)->clear_name();
  m.mutable_graph()->mutable_node(2)->set_name("same");
  auto* extra = m.mutable_graph()->add_node();  // Identity after Relu, also "same"
  extra->set_op_type("Identity");
  extra->set_name("same");
  extra->add_input("Y");
  extra->add_output("Z");
  m.mutable_graph()->mutable_output(0)->set_name("Z");
  return m;
}

}  // namespace

TEST_CASE("1. a sidecar path that is a directory: the model is not replaced") {
  Scratch s("r2_sidecar_dir");
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

TEST_CASE("1. with external data: an existing data file survives a failed save") {
  Scratch s("r2_data");
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

TEST_CASE("1. a FIFO at a target is refused before anything is written") {
  Scratch s("r2_fifo_target");
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

TEST_CASE("1. SIGTERM during a save leaves no temporary file") {
  // A fresh process (the CLI): the test runner's own signal handlers would
  // keep the SDK's from being installed (it only takes default ones).
  Scratch s("r2_sigterm");
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

TEST_CASE("2. a symlink at the destination is replaced, never written through") {
  Scratch s("r2_symlink");
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

TEST_CASE("3. unnamed and duplicate-named nodes: tag, save, load, inspect, validate, functions, extract") {
  Scratch s("r2_unnamed");
  write(s.models() / "u.onnx", bytes_of(unnamed_and_duplicate_net()));
  mx_model* m = load_tagged(s.models() / "u.onnx");
  const std::string h = json_of(
      [](const mx_model* x, const char*, char** o, size_t* n) { return mx_model_hierarchy_json(x, o, n); },
      m);
  CHECK(h.find("\"index\":3") != std::string::npos);
  for (const char* storage : {"metadata", "doc_string", "none"}) {
    INFO(storage);
    const std::string opts = std::string("{\"tag_storage\":\"") + storage + "\"}";
    REQUIRE(save(m, s.out() / "t.onnx", opts.c_str()).code == MX_OK);
    mx_model* again = load(s.out() / "t.onnx");
    const std::string h2 = json_of(
        [](const mx_model* x, const char*, char** o, size_t* n) { return mx_model_hierarchy_json(x, o, n); },
        again);
    // Four records, one per node.
    size_t records = 0;
    for (size_t p = 0; (p = h2.find("\"evidence\":\"", p)) != std::string::npos; ++p) ++records;
    CHECK(records == 4);
    CHECK(json_of(mx_model_modules_json, again).find("\"nodes\":4") != std::string::npos);
    const std::string report = validate(s.out() / "t.onnx");
    CHECK_MESSAGE(report.find("\"ok\":true") != std::string::npos, report);
    mx_model_release(again);
  }
  mx_model* f = load(s.out() / "t.onnx");
  mx_status* st = mx_model_to_functions(f, nullptr, nullptr, nullptr);
  CHECK_MESSAGE(st == nullptr, std::string(mx_status_message(st)));
  mx_status_release(st);
  mx_model* part = nullptr;
  // Names are the scope strategy's evidence: nameless nodes sit at the root.
  st = mx_model_extract(m, "", nullptr, &part);
  CHECK_MESSAGE(st == nullptr, std::string(mx_status_message(st)));
  mx_status_release(st);
  if (part) CHECK(save(part, s.out() / "fc.onnx").code == MX_OK);
  mx_model_release(part);
  mx_model_release(f);
  mx_model_release(m);
}

TEST_CASE("3. a record of an unnamed node without index is refused clearly") {
  Scratch s("r2_noindex");
  write(s.models() / "u.onnx", bytes_of(unnamed_and_duplicate_net()));
  mx_model* m = load(s.models() / "u.onnx");
  const char* doc =
      "{\"schema\":\"modelexport.hierarchy/1\",\"modules\":[],"
      "\"nodes\":[{\"name\":\"\",\"module\":\"\",\"evidence\":\"root\"}]}";
  mx_status* st = mx_model_set_hierarchy_json(m, doc, 0);
  CHECK(mx_status_code(st) == MX_ERR_SCHEMA);
  CHECK(std::string(mx_status_message(st)).find("nodes[0].index: required") != std::string::npos);
  mx_status_release(st);
  mx_model_release(m);
}

TEST_CASE("4. FIFOs where a file is expected: refused at once") {
  Scratch s("r2_fifo");
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

TEST_CASE("6. validate: invalid UTF-8 and hostile external data are issues, not errors") {
  Scratch s("r2_validate");
  auto m = tiny_net();
  m.mutable_graph()->mutable_node(0)->set_name("bad\xAD\xFFname");
  auto* e = m.add_metadata_props();
  e->set_key("note");
  e->set_value("\xC3\x28");
  write(s.models() / "u.onnx", bytes_of(m));
  mx_code code = MX_OK;
  std::string report = validate(s.models() / "u.onnx", &code);
  CHECK(code == MX_OK);
  CHECK(report.find("\"kind\":\"utf8\"") != std::string::npos);
  CHECK(report.find("internal") == std::string::npos);

  auto x = tiny_net();
  auto* w = x.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  w->clear_float_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = w->add_external_data();
  loc->set_key("location");
  loc->set_value("/etc/passwd");
  write(s.models() / "x.onnx", bytes_of(x));
  report = validate(s.models() / "x.onnx", &code);
  CHECK(code == MX_OK);
  CHECK(report.find("\"kind\":\"external_data\"") != std::string::npos);
  CHECK(report.find("\"ok\":false") != std::string::npos);
}

TEST_CASE("6. graphml of a model with invalid UTF-8 names is valid UTF-8") {
  auto m = tiny_net();
  m.mutable_graph()->mutable_node(0)->set_name(std::string("n\xAD\0x", 4));
  const std::string b = bytes_of(m);
  mx_model* model = nullptr;
  REQUIRE(mx_model_load_bytes(b.data(), b.size(), &model) == nullptr);
  char* text = nullptr;
  size_t n = 0;
  REQUIRE(mx_model_render(model, "graphml", nullptr, &text, &n) == nullptr);
  const std::string xml(text, n);
  CHECK(xml.find('\xAD') == std::string::npos);
  CHECK(xml.find("n\xEF\xBF\xBDx") != std::string::npos);  // U+FFFD, NUL dropped
  mx_free(text);
  mx_model_release(model);
}

TEST_CASE("7. a tensor whose dims claim far more data than it holds is refused") {
  Scratch s("r2_sizes");
  auto m = tiny_net();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_dims();
  w->add_dims(int64_t{1} << 20);
  w->add_dims(int64_t{1} << 20);
  w->clear_float_data();
  w->set_raw_data(std::string(4, '\0'));
  write(s.models() / "big.onnx", bytes_of(m));
  auto r = pipeline(s.models() / "big.onnx", s.out() / "o.onnx");
  CHECK(r.code == MX_ERR_SCHEMA);
  CHECK(r.stage == "load");
  CHECK(r.message.find("claim 1099511627776 elements") != std::string::npos);
  mx_code code = MX_OK;
  const std::string report = validate(s.models() / "big.onnx", &code);
  CHECK(report.find("\"kind\":\"tensor_data\"") != std::string::npos);
}

TEST_CASE("7. sidecar module paths follow the --hierarchy rule") {
  Scratch s("r2_paths");
  write(s.models() / "m.onnx", bytes_of(tiny_net()));
  for (const char* bad : {"..", "a/b c"}) {
    write(s.models() / "m.hierarchy.json",
          std::string("{\"schema\":\"modelexport.hierarchy/1\",\"modules\":[{\"path\":\"\","
                      "\"class\":\"Net\",\"children\":[\"") +
              bad + "\"]},{\"path\":\"" + bad + "\",\"class\":\"X\",\"parent\":\"\"}],\"nodes\":[]}");
    auto r = pipeline(s.models() / "m.onnx", s.out() / "o.onnx");
    INFO(r.message);
    CHECK(r.code == MX_ERR_SCHEMA);
    CHECK(r.message.find("is not a module path") != std::string::npos);
  }
}

TEST_CASE("7. tag --hierarchy refuses a tree that validate would call broken") {
  Scratch s("r2_tree");
  write(s.models() / "m.onnx", bytes_of(tiny_net()));
  mx_model* m = load(s.models() / "m.onnx");
  // fc names the root as parent, the root does not list it; "x" is listed
  // as a child of fc but says its parent is the root.
  const char* opts =
      "{\"hierarchy\":{\"schema\":\"modelexport.hierarchy/1\",\"nodes\":[],\"modules\":["
      "{\"path\":\"\",\"class\":\"Net\",\"children\":[\"x\"]},"
      "{\"path\":\"fc\",\"class\":\"Linear\",\"parent\":\"\",\"children\":[\"x\"]},"
      "{\"path\":\"x\",\"class\":\"X\",\"parent\":\"\"}]}}";
  mx_status* st = mx_registry_tag(registry(), "scope", m, opts);
  CHECK(mx_status_code(st) == MX_ERR_SCHEMA);
  CHECK(std::string(mx_status_message(st)).find("module tree is inconsistent") != std::string::npos);
  mx_status_release(st);
  mx_model_release(m);
}

TEST_CASE("8. a NUL in a node name does not cut the message") {
  auto m = tiny_net();
  m.mutable_graph()->mutable_node(0)->set_name(std::string("a\0b", 3));
  m.mutable_graph()->mutable_node(1)->set_name(std::string("a\0b", 3));
  const std::string b = bytes_of(m);
  mx_model* model = nullptr;
  REQUIRE(mx_model_load_bytes(b.data(), b.size(), &model) == nullptr);
  char* text = nullptr;
  size_t n = 0;
  mx_status* st = mx_model_node_record(model, "a", &text, &n);  // C string: "a"
  CHECK(mx_status_code(st) == MX_ERR_NOT_FOUND);
  mx_status_release(st);
  const char* doc =
      "{\"schema\":\"modelexport.hierarchy/1\",\"modules\":[],"
      "\"nodes\":[{\"name\":\"a\\u0000b\",\"module\":\"\",\"evidence\":\"root\"}]}";
  st = mx_model_set_hierarchy_json(model, doc, 0);
  CHECK(mx_status_code(st) == MX_ERR_SCHEMA);
  CHECK(std::string(mx_status_message(st)).find("'a\\x00b' is used by 2 nodes") != std::string::npos);
  mx_status_release(st);
  mx_model_release(model);
}
