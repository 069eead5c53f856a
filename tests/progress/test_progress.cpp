// The mx_progress callback through the public C API: what each long call
// reports, that reports are throttled but keep the first and last of each
// stage, and that a callback asking to cancel leaves no output behind and
// models unchanged.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "scratch_dir.hpp"
#include "stacknet.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string status_text(mx_status* s) {
  std::string text = s ? std::string(mx_code_name(mx_status_code(s))) + ": " + mx_status_message(s) : "ok";
  mx_status_release(s);
  return text;
}
#define REQUIRE_OK(expr) REQUIRE(status_text(expr) == "ok")

struct Event {
  std::string stage, unit;
  uint64_t done, total;
};

// Records every report; `cancel_when` (optional) answers "stop".
struct Recorder {
  std::vector<Event> events;
  std::function<bool(const Event&)> cancel_when;
  mx_progress listener{};

  explicit Recorder(uint32_t min_interval_ms = 1) {
    listener.struct_size = sizeof(mx_progress);
    listener.callback = &Recorder::on_event;
    listener.user_data = this;
    listener.min_interval_ms = min_interval_ms;
  }
  static int32_t on_event(const mx_progress_event* e, void* self) {
    auto* r = static_cast<Recorder*>(self);
    CHECK(e->struct_size >= sizeof(mx_progress_event));
    r->events.push_back({e->stage, e->unit, e->done, e->total});
    return r->cancel_when && r->cancel_when(r->events.back()) ? 1 : 0;
  }
  // Distinct stages in the order they first appeared.
  std::vector<std::string> stages() const {
    std::vector<std::string> out;
    for (const auto& e : events)
      if (out.empty() || out.back() != e.stage) out.push_back(e.stage);
    return out;
  }
  std::vector<Event> of(const std::string& stage) const {
    std::vector<Event> out;
    for (const auto& e : events)
      if (e.stage == stage) out.push_back(e);
    return out;
  }
};

using ModelPtr = std::unique_ptr<mx_model, decltype(&mx_model_release)>;

// StackNet plus an unused 24 MB initializer, so that writing takes several
// 8 MB pieces.
ModelPtr big_stack_net() {
  onnx::ModelProto proto = mx::testing::stack_net();
  auto* big = proto.mutable_graph()->add_initializer();
  big->set_name("big");
  big->set_data_type(onnx::TensorProto::FLOAT);
  big->add_dims(6 << 20);
  big->set_raw_data(std::string(static_cast<size_t>(24) << 20, '\1'));
  const std::string bytes = proto.SerializeAsString();
  mx_model* m = nullptr;
  REQUIRE_OK(mx_model_load_bytes(bytes.data(), bytes.size(), &m));
  const std::string h = mx::testing::stack_net_hierarchy();
  REQUIRE_OK(mx_model_set_hierarchy_json(m, h.data(), h.size()));
  return ModelPtr(m, &mx_model_release);
}

ModelPtr stack_net() {
  const std::string bytes = mx::testing::stack_net().SerializeAsString();
  mx_model* m = nullptr;
  REQUIRE_OK(mx_model_load_bytes(bytes.data(), bytes.size(), &m));
  const std::string h = mx::testing::stack_net_hierarchy();
  REQUIRE_OK(mx_model_set_hierarchy_json(m, h.data(), h.size()));
  return ModelPtr(m, &mx_model_release);
}

std::string saved_bytes(const mx_model* m) {
  void* out = nullptr;
  size_t size = 0;
  REQUIRE_OK(mx_model_save_bytes(m, "{\"check\":false}", &out, &size));
  std::string bytes(static_cast<const char*>(out), size);
  mx_free(out);
  return bytes;
}

std::string hierarchy(const mx_model* m) {
  char* out = nullptr;
  size_t size = 0;
  REQUIRE_OK(mx_model_hierarchy_json(m, &out, &size));
  std::string text(out, size);
  mx_free(out);
  return text;
}

// An empty directory of its own for each test, inside the process's own
// scratch directory (removed at exit).
fs::path fresh_dir(const std::string& name) {
  static const mx::testing::ScratchDir scratch;
  const fs::path dir = fs::path(scratch.path()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

size_t entries(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

void check_counts_end_at_total(const std::vector<Event>& events) {
  REQUIRE_FALSE(events.empty());
  CHECK(events.front().done == 0);
  CHECK(events.back().done == events.back().total);
  CHECK(events.back().total > 0);
  for (size_t k = 1; k < events.size(); ++k) CHECK(events[k].done >= events[k - 1].done);
}

mx_registry* registry_with_build_plugins() {
  const std::string options = json{{"discover", false}, {"plugin_dirs", {MX_TEST_PLUGIN_DIR}}}.dump();
  mx_registry* r = nullptr;
  REQUIRE_OK(mx_registry_create(options.c_str(), &r));
  return r;
}

}  // namespace

TEST_CASE("saving reports check, write (bytes of the model file) and commit") {
  auto model = big_stack_net();
  const fs::path dir = fresh_dir("save");
  const std::string path = (dir / "m.onnx").string();
  Recorder recorder;
  REQUIRE_OK(mx_model_save_file_with_progress(model.get(), path.c_str(), nullptr, &recorder.listener));
  CHECK(recorder.stages() == std::vector<std::string>{"check", "write", "commit"});
  const auto write = recorder.of("write");
  check_counts_end_at_total(write);
  CHECK(write.size() >= 3);  // 24 MB in 8 MB pieces, reports at most 1 ms apart
  CHECK(write.back().unit == "bytes");
  CHECK(write.back().total == fs::file_size(path));
}

TEST_CASE("with external data, write counts the data file") {
  auto model = big_stack_net();
  const fs::path dir = fresh_dir("external");
  const std::string path = (dir / "m.onnx").string();
  Recorder recorder;
  REQUIRE_OK(mx_model_save_file_with_progress(model.get(), path.c_str(), "{\"external_data\":true}",
                                              &recorder.listener));
  const auto write = recorder.of("write");
  check_counts_end_at_total(write);
  CHECK(write.back().total == fs::file_size(path + ".data"));
}

TEST_CASE("a slow interval keeps only the first and last report of a stage") {
  auto model = big_stack_net();
  const fs::path dir = fresh_dir("throttle");
  Recorder recorder(60000);
  REQUIRE_OK(mx_model_save_file_with_progress(model.get(), (dir / "m.onnx").string().c_str(), nullptr,
                                              &recorder.listener));
  const auto write = recorder.of("write");
  REQUIRE(write.size() == 2);
  CHECK(write[0].done == 0);
  CHECK(write[1].done == write[1].total);
}

TEST_CASE("cancelling a save leaves no file behind") {
  auto model = big_stack_net();
  const fs::path dir = fresh_dir("cancel-save");
  const std::string path = (dir / "m.onnx").string();
  SUBCASE("inline") {
    Recorder recorder;
    recorder.cancel_when = [](const Event& e) { return e.stage == "write" && e.done > 0; };
    CHECK(status_text(
              mx_model_save_file_with_progress(model.get(), path.c_str(), nullptr, &recorder.listener)) ==
          "cancelled: cancelled by the progress callback during 'write'");
  }
  SUBCASE("inline, unchecked: written from the tagged bytes, the sidecar on a second thread") {
    Recorder recorder;
    recorder.cancel_when = [](const Event& e) { return e.stage == "write" && e.done > 0; };
    CHECK(status_text(mx_model_save_file_with_progress(model.get(), path.c_str(), "{\"check\":false}",
                                                       &recorder.listener)) ==
          "cancelled: cancelled by the progress callback during 'write'");
  }
  SUBCASE("external data") {
    Recorder recorder;
    recorder.cancel_when = [](const Event& e) { return e.stage == "write" && e.done > 0; };
    CHECK(status_text(mx_model_save_file_with_progress(model.get(), path.c_str(), "{\"external_data\":true}",
                                                       &recorder.listener))
              .rfind("cancelled: ", 0) == 0);
  }
  SUBCASE("at commit, the last moment") {
    Recorder recorder;
    recorder.cancel_when = [](const Event& e) { return e.stage == "commit"; };
    CHECK(
        status_text(mx_model_save_file_with_progress(model.get(), path.c_str(), nullptr, &recorder.listener))
            .rfind("cancelled: ", 0) == 0);
  }
  CHECK(entries(dir) == 0);  // no model, data, sidecar or temporary
}

TEST_CASE("no listener, or no callback, is the plain call; a short struct is refused") {
  auto model = stack_net();
  const fs::path dir = fresh_dir("plain");
  REQUIRE_OK(
      mx_model_save_file_with_progress(model.get(), (dir / "a.onnx").string().c_str(), nullptr, nullptr));
  mx_progress silent{};
  silent.struct_size = sizeof(mx_progress);
  REQUIRE_OK(
      mx_model_save_file_with_progress(model.get(), (dir / "b.onnx").string().c_str(), nullptr, &silent));
  CHECK(fs::exists(dir / "a.onnx"));
  CHECK(fs::exists(dir / "b.onnx"));
  mx_progress short_struct{};
  short_struct.struct_size = 4;
  CHECK(status_text(mx_model_save_file_with_progress(model.get(), (dir / "c.onnx").string().c_str(), nullptr,
                                                     &short_struct))
            .rfind("invalid_argument: progress: struct_size 4 is too small", 0) == 0);
  CHECK_FALSE(fs::exists(dir / "c.onnx"));
}

TEST_CASE("the functions pass reports modules converted out of selected") {
  auto model = stack_net();
  Recorder recorder;
  char* report = nullptr;
  size_t size = 0;
  REQUIRE_OK(mx_model_to_functions_with_progress(model.get(), nullptr, &recorder.listener, &report, &size));
  const json r = json::parse(report, report + size);
  mx_free(report);
  const auto events = recorder.of("functions");
  check_counts_end_at_total(events);
  CHECK(events.back().unit == "modules");
  CHECK(events.back().total == 3);  // the default selection: blocks.0..2
  CHECK(r["calls"] == 3);
}

TEST_CASE("cancelling the functions pass leaves the model unchanged") {
  auto model = stack_net();
  const std::string before = saved_bytes(model.get());
  Recorder recorder;
  // Reports between the first and the last may be throttled away: ">= 1".
  recorder.cancel_when = [](const Event& e) { return e.done >= 1; };
  CHECK(status_text(
            mx_model_to_functions_with_progress(model.get(), nullptr, &recorder.listener, nullptr, nullptr))
            .rfind("cancelled: ", 0) == 0);
  CHECK(saved_bytes(model.get()) == before);
}

TEST_CASE("tagging reports the strategies and propagation; cancelled, the model is unchanged") {
  mx_registry* registry = registry_with_build_plugins();
  auto model = stack_net();
  const std::string before = hierarchy(model.get());
  SUBCASE("reports") {
    Recorder recorder;
    REQUIRE_OK(mx_registry_tag_with_progress(registry, "scope", model.get(), nullptr, &recorder.listener));
    CHECK(recorder.stages() == std::vector<std::string>{"tag", "propagate"});
    const auto tag = recorder.of("tag");
    check_counts_end_at_total(tag);
    CHECK(tag.back().total == 1);
    CHECK(tag.back().unit == "strategies");
  }
  SUBCASE("cancelled at propagation") {
    Recorder recorder;
    recorder.cancel_when = [](const Event& e) { return e.stage == "propagate"; };
    CHECK(status_text(
              mx_registry_tag_with_progress(registry, "scope", model.get(), nullptr, &recorder.listener)) ==
          "cancelled: cancelled by the progress callback during 'propagate'");
    CHECK(hierarchy(model.get()) == before);
  }
  mx_registry_release(registry);
}

TEST_CASE("export through torch_export reports lowering: nodes done out of the program's nodes") {
  mx_registry* registry = registry_with_build_plugins();
  SUBCASE("reports") {
    Recorder recorder;
    mx_model* out = nullptr;
    REQUIRE_OK(mx_registry_export_with_progress(registry, "torch_export", MX_TEST_PT2, nullptr,
                                                &recorder.listener, &out));
    mx_model_release(out);
    CHECK(recorder.stages() == std::vector<std::string>{"export", "lower", "load"});
    const auto lower = recorder.of("lower");
    check_counts_end_at_total(lower);
    CHECK(lower.back().unit == "nodes");
  }
  SUBCASE("cancelled inside the plugin: no model") {
    Recorder recorder;
    recorder.cancel_when = [](const Event& e) { return e.stage == "lower" && e.done >= 1; };
    mx_model* out = nullptr;
    CHECK(status_text(mx_registry_export_with_progress(registry, "torch_export", MX_TEST_PT2, nullptr,
                                                       &recorder.listener, &out)) ==
          "cancelled: cancelled by the progress callback during 'lower'");
    CHECK(out == nullptr);
  }
  mx_registry_release(registry);
}
