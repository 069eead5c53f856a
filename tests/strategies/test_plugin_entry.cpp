// Each plugin through its C entry point, loaded with dlopen the way any
// host would: descriptor fields, a full assign round trip, bad requests.
#include <doctest/doctest.h>
#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "modelexport/plugin.h"

namespace {

std::vector<std::string>& logged() {
  static std::vector<std::string> lines;
  return lines;
}

void test_log(void*, int32_t level, const char* message) {
  logged().push_back(std::to_string(level) + " " + message);
}

const mx_host_api kHost = {sizeof(mx_host_api),
                           MX_PLUGIN_ABI_MAJOR,
                           MX_PLUGIN_ABI_MINOR,
                           "test",
                           std::malloc,
                           std::free,
                           test_log,
                           nullptr};

struct Loaded {
  void* handle = nullptr;
  const mx_plugin_descriptor* d = nullptr;
  void* state = nullptr;

  explicit Loaded(const std::string& name) {
    std::string path = std::string(MX_TEST_PLUGIN_DIR) + "/libmodelexport_strategy_" + name + ".so";
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE_MESSAGE(handle, dlerror());
    auto entry = reinterpret_cast<mx_plugin_entry_fn>(dlsym(handle, MX_PLUGIN_ENTRY_SYMBOL));
    REQUIRE(static_cast<bool>(entry));
    d = entry();
    mx_plugin_output err{};
    REQUIRE(d->create(&kHost, &state, &err) == 0);
  }
  ~Loaded() {
    if (d && d->destroy) d->destroy(state);
    if (handle) dlclose(handle);
  }

  // Returns the code; fills json or error.
  int32_t run(const std::string& request, nlohmann::json& answer, std::string& error) {
    mx_plugin_output out{};
    int32_t code = d->run(state, request.data(), request.size(), &out);
    if (out.json) answer = nlohmann::json::parse(std::string(out.json, out.json_size));
    if (out.error) error = out.error;
    std::free(out.json);
    std::free(out.error);
    std::free(out.bytes);
    return code;
  }
};

std::string request(nlohmann::json graph) {
  return nlohmann::json{{"schema", "modelexport.strategy-request/1"},
                        {"operation", "assign"},
                        {"options", nlohmann::json::object()},
                        {"graph", graph},
                        {"modules", nlohmann::json::array()}}
      .dump();
}

void check_bad_requests(Loaded& p) {
  nlohmann::json answer;
  std::string error;
  CHECK(p.run("{not json", answer, error) == MX_ERR_PARSE);
  CHECK_FALSE(error.empty());
  error.clear();
  CHECK(p.run(R"({"operation": "export"})", answer, error) == MX_ERR_UNSUPPORTED);
  CHECK(p.run(R"({"operation": 5})", answer, error) == MX_ERR_UNSUPPORTED);
  CHECK(p.run(R"([1,2])", answer, error) == MX_ERR_PARSE);
  // An assign without a graph is a request the strategy cannot use.
  error.clear();
  CHECK(p.run(R"({"operation": "assign"})", answer, error) == MX_ERR_SCHEMA);
  CHECK(error.find("graph.nodes") != std::string::npos);
}

}  // namespace

TEST_CASE("metadata plugin through its C entry point") {
  Loaded p("metadata");
  CHECK(p.d->abi_major == MX_PLUGIN_ABI_MAJOR);
  CHECK(p.d->kind == MX_PLUGIN_STRATEGY);
  CHECK(std::string(p.d->name) == "metadata");
  logged().clear();
  nlohmann::json graph = {{"nodes",
                           {{{"index", 0},
                             {"name", "a"},
                             {"op_type", "Relu"},
                             {"metadata",
                              {{"pkg.torch.onnx.name_scopes", "['', 'body', 'body.0', 'relu']"},
                               {"pkg.torch.onnx.class_hierarchy",
                                "['m.Net', 'torch.nn.Sequential', 'torch.nn.ReLU', 'aten.relu.default']"}}}},
                            {{"index", 1},
                             {"name", "b"},
                             {"op_type", "Add"},
                             {"metadata", {{"pkg.torch.onnx.name_scopes", "['', 'body'"}}}}}}};
  nlohmann::json answer;
  std::string error;
  REQUIRE(p.run(request(graph), answer, error) == MX_OK);
  CHECK(answer["schema"] == "modelexport.strategy-response/1");
  REQUIRE(answer["assignments"].size() == 1);
  CHECK(answer["assignments"][0] ==
        nlohmann::json{{"node", 0}, {"module", "body.0"}, {"evidence", "metadata"}});
  CHECK(answer["modules"][0] == nlohmann::json{{"path", ""}, {"class", "Net"}, {"qualified_class", "m.Net"}});
  REQUIRE(logged().size() == 1);  // the malformed node b, as a warning
  CHECK(logged()[0].rfind("2 ", 0) == 0);
  CHECK(logged()[0].find("'b'") != std::string::npos);
  check_bad_requests(p);
}

TEST_CASE("usage plugin through its C entry point") {
  Loaded p("usage");
  CHECK(std::string(p.d->name) == "usage");
  CHECK(p.d->kind == MX_PLUGIN_STRATEGY);
  nlohmann::json graph = {
      {"nodes",
       {{{"index", 0}, {"op_type", "Transpose"}, {"inputs", {"fc.weight"}}, {"outputs", {"wt"}}},
        {{"index", 1}, {"op_type", "MatMul"}, {"inputs", {"x", "wt"}}, {"outputs", {"y"}}}}},
      {"initializers", {"fc.weight"}}};
  nlohmann::json answer;
  std::string error;
  REQUIRE(p.run(request(graph), answer, error) == MX_OK);
  CHECK(answer["assignments"] ==
        nlohmann::json::array({{{"node", 0}, {"module", "fc"}, {"evidence", "parameter"}},
                               {{"node", 1}, {"module", "fc"}, {"evidence", "parameter"}}}));
  check_bad_requests(p);
}

TEST_CASE("a host table too small to hold an allocator is refused") {
  Loaded p("usage");
  mx_host_api tiny = kHost;
  tiny.struct_size = 8;
  void* state = nullptr;
  mx_plugin_output err{};
  CHECK(p.d->create(&tiny, &state, &err) != 0);
  CHECK(p.d->create(nullptr, &state, &err) != 0);
}
