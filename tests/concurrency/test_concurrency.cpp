// The thread-safety the C header promises (modelexport.h, "Thread safety"):
// different models on different threads, one shared registry, concurrent
// const calls on one model. 8 threads tag (and export, when the torchscript
// frontend is in the build) different models at once; every result must be
// byte-identical to the sequential run. Built and run under ThreadSanitizer
// by scripts/test-sanitizers.sh --tsan (see README.md for why the exporter
// itself is checked by byte equality only).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "synthetic_model.hpp"

namespace {

constexpr int kThreads = 8;
constexpr int kRounds = 3;

std::string take_error(mx_status* s) {
  std::string m = std::string(mx_code_name(mx_status_code(s))) + ": " + mx_status_message(s);
  mx_status_release(s);
  return m;
}

mx_registry* shared_registry() {
  static mx_registry* r = [] {
    mx_registry* reg = nullptr;
    std::string dirs = "\"" MX_TEST_PLUGIN_DIR "\"";
    std::string opts = "{\"discover\":false,\"plugin_dirs\":[" + dirs + "]}";
    mx_status* s = mx_registry_create(opts.c_str(), &reg);
    if (s) FAIL(take_error(s));
    return reg;
  }();
  return r;
}

// load bytes -> tag (strategy) -> save bytes (checker on) + hierarchy JSON.
std::string tag_bytes(const std::string& onnx, const char* strategy) {
  mx_model* m = nullptr;
  if (mx_status* s = mx_model_load_bytes(onnx.data(), onnx.size(), &m)) return "ERROR " + take_error(s);
  std::string out;
  if (mx_status* s = mx_registry_tag(shared_registry(), strategy, m, nullptr)) {
    out = "ERROR " + take_error(s);
  } else {
    void* b = nullptr;
    size_t n = 0;
    char* h = nullptr;
    size_t hn = 0;
    if (mx_status* s2 = mx_model_save_bytes(m, nullptr, &b, &n)) out = "ERROR " + take_error(s2);
    else if (mx_status* s3 = mx_model_hierarchy_json(m, &h, &hn)) out = "ERROR " + take_error(s3);
    else out = std::string(static_cast<char*>(b), n) + std::string(h, hn);
    mx_free(b);
    mx_free(h);
  }
  mx_model_release(m);
  return out;
}

// Runs fn(i) for i in [0, kThreads) on kThreads threads, kRounds times, and
// checks each result against expected[i].
template <typename Fn>
void concurrently_equal(const std::vector<std::string>& expected, Fn fn) {
  for (int round = 0; round < kRounds; ++round) {
    std::vector<std::string> got(expected.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < expected.size(); ++i) threads.emplace_back([&, i] { got[i] = fn(i); });
    for (auto& t : threads) t.join();
    for (size_t i = 0; i < expected.size(); ++i) {
      INFO("round " << round << ", thread " << i);
      CHECK(got[i].rfind("ERROR", 0) != 0);
      CHECK(got[i] == expected[i]);
    }
  }
}

}  // namespace

TEST_CASE("8 threads tagging 8 different models = the sequential bytes") {
  std::vector<std::string> models;
  for (int i = 0; i < kThreads; ++i)
    models.push_back(synthetic::scoped_model(20 + 7 * i, 4, std::to_string(i)).SerializeAsString());
  for (const char* strategy : {"scope", "auto"}) {
    CAPTURE(strategy);
    std::vector<std::string> expected;
    for (const auto& m : models) expected.push_back(tag_bytes(m, strategy));
    for (const auto& e : expected) REQUIRE_MESSAGE(e.rfind("ERROR", 0) != 0, e);
    concurrently_equal(expected, [&](size_t i) { return tag_bytes(models[i], strategy); });
  }
}

TEST_CASE("concurrent const calls on one shared model") {
  const std::string onnx = synthetic::scoped_model(30, 4).SerializeAsString();
  mx_model* m = nullptr;
  REQUIRE(mx_model_load_bytes(onnx.data(), onnx.size(), &m) == nullptr);
  REQUIRE(mx_registry_tag(shared_registry(), "scope", m, nullptr) == nullptr);
  auto read_all = [m](size_t) {
    std::string out;
    char* t = nullptr;
    size_t n = 0;
    void* b = nullptr;
    if (mx_status* s = mx_model_graph_json(m, &t, &n)) return "ERROR " + take_error(s);
    out.append(t, n);
    mx_free(t);
    if (mx_status* s = mx_model_hierarchy_json(m, &t, &n)) return "ERROR " + take_error(s);
    out.append(t, n);
    mx_free(t);
    if (mx_status* s = mx_model_node_record(m, "/encoder/layer.3/dense/MatMul", &t, &n))
      return "ERROR " + take_error(s);
    out.append(t, n);
    mx_free(t);
    if (mx_status* s = mx_model_save_bytes(m, "{\"tag_storage\":\"doc_string\"}", &b, &n))
      return "ERROR " + take_error(s);
    out.append(static_cast<char*>(b), n);
    mx_free(b);
    // Unchecked: written straight from the shared model (model/tagged_bytes),
    // whose cached sizes every thread computes.
    if (mx_status* s = mx_model_save_bytes(m, "{\"check\":false}", &b, &n)) return "ERROR " + take_error(s);
    out.append(static_cast<char*>(b), n);
    mx_free(b);
    if (mx_status* s = mx_model_check(m)) return "ERROR " + take_error(s);
    return out;
  };
  const std::string one = read_all(0);
  REQUIRE(one.rfind("ERROR", 0) != 0);
  concurrently_equal(std::vector<std::string>(kThreads, one), read_all);
  mx_model_release(m);
}

TEST_CASE("8 threads exporting different TorchScript models = the sequential bytes") {
  const char* plugin_dir = std::getenv("MX_TORCHSCRIPT_PLUGIN_DIR");
  const char* fixtures = std::getenv("MX_TORCHSCRIPT_FIXTURES");
  if (!plugin_dir || !fixtures || !*plugin_dir) {
    MESSAGE("torchscript frontend not in this build: export concurrency not run");
    return;
  }
  mx_registry* reg = nullptr;
  const std::string opts =
      std::string("{\"discover\":false,\"plugin_dirs\":[\"") + plugin_dir + "\",\"" MX_TEST_PLUGIN_DIR "\"]}";
  REQUIRE(mx_registry_create(opts.c_str(), &reg) == nullptr);
  const std::string manifest_path = std::string(fixtures) + "/manifest.json";
  std::ifstream mf(manifest_path);
  INFO("fixture manifest: " << manifest_path << " (generated by ctest -R torchscript_fixtures)");
  REQUIRE(mf.good());
  const auto manifest = nlohmann::json::parse(mf);
  std::vector<std::pair<std::string, std::string>> jobs;  // path, options
  for (const auto& [name, entry] : manifest.items()) {
    const std::string path = std::string(fixtures) + "/" + name + ".pt";
    if (name == "unsupported" || name == "pool_indices" || name == "vit_b_16" ||
        !std::filesystem::exists(path))
      continue;
    jobs.emplace_back(path, nlohmann::json{{"inputs", entry.at("inputs")}}.dump());
    if (jobs.size() == kThreads) break;
  }
  REQUIRE(!jobs.empty());
  auto export_bytes = [&](size_t i) -> std::string {
    const auto& [path, o] = jobs[i % jobs.size()];
    mx_model* m = nullptr;
    if (mx_status* s = mx_registry_export(reg, "torchscript", path.c_str(), o.c_str(), &m))
      return "ERROR " + path + ": " + take_error(s);
    void* b = nullptr;
    size_t n = 0;
    std::string out;
    if (mx_status* s = mx_model_save_bytes(m, "{\"check\":false}", &b, &n)) out = "ERROR " + take_error(s);
    else out.assign(static_cast<char*>(b), n);
    mx_free(b);
    mx_model_release(m);
    return out;
  };
  std::vector<std::string> expected;
  for (size_t i = 0; i < kThreads; ++i) expected.push_back(export_bytes(i));
  for (const auto& e : expected) REQUIRE_MESSAGE(e.rfind("ERROR", 0) != 0, e.substr(0, 400));
  concurrently_equal(expected, export_bytes);
  mx_registry_release(reg);
}
