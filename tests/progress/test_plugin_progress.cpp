// Plugin ABI 1.1 compatibility of mx_host_api.progress, on the real
// torch_export frontend loaded by hand (no registry): under a host table of
// the 1.0 layout (struct_size ending before `progress`) the plugin must not
// call it, even though the memory after the table holds a function; under
// the 1.1 layout it reports lowering, and a non-zero answer stops it with
// MX_ERR_CANCELLED.
#include <doctest/doctest.h>
#include <dlfcn.h>

#include <cstddef>
#include <cstdlib>
#include <string>

#include "modelexport/modelexport.h"
#include "modelexport/plugin.h"

namespace {

struct Counter {
  int calls = 0;
  uint64_t last_done = 0, last_total = 0;
  int32_t answer = 0;
};
Counter counter;

int32_t counting_progress(void*, const char*, const char*, uint64_t done, uint64_t total) {
  ++counter.calls;
  counter.last_done = done;
  counter.last_total = total;
  return counter.answer;
}
void* test_alloc(size_t n) {
  return std::malloc(n ? n : 1);
}
void test_free(void* p) {
  std::free(p);
}
void test_log(void*, int32_t, const char*) {}

struct LoadedPlugin {
  void* library = dlopen(MX_TEST_TORCH_EXPORT_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  const mx_plugin_descriptor* descriptor = nullptr;
  void* state = nullptr;

  explicit LoadedPlugin(const mx_host_api& host) {
    REQUIRE_MESSAGE(library, dlerror());
    auto entry = reinterpret_cast<mx_plugin_entry_fn>(dlsym(library, MX_PLUGIN_ENTRY_SYMBOL));
    const bool has_entry = entry != nullptr;
    REQUIRE(has_entry);
    descriptor = entry();
    CHECK(descriptor->abi_minor == MX_PLUGIN_ABI_MINOR);
    mx_plugin_output error{};
    REQUIRE(descriptor->create(&host, &state, &error) == 0);
  }
  ~LoadedPlugin() {
    if (descriptor && descriptor->destroy) descriptor->destroy(state);
    // Not unloaded: LibTorch-free, but protobuf's registrations do not
    // survive a dlclose/dlopen cycle in one process.
  }
  int32_t export_model() const {
    const std::string request = std::string(
                                    "{\"schema\":\"modelexport.frontend-request/1\",\"operation\":\"export\","
                                    "\"model_path\":\"") +
                                MX_TEST_PT2 + "\",\"inputs\":[],\"opset\":17}";
    mx_plugin_output out{};
    const int32_t code = descriptor->run(state, request.c_str(), request.size(), &out);
    std::free(out.json), std::free(out.bytes), std::free(out.error);
    return code;
  }
};

mx_host_api host_table(uint32_t struct_size) {
  mx_host_api host{};
  host.struct_size = struct_size;
  host.abi_major = MX_PLUGIN_ABI_MAJOR;
  host.abi_minor = struct_size < offsetof(mx_host_api, graph) ? 0 : 1;
  host.host_version = "test";
  host.alloc = test_alloc;
  host.free = test_free;
  host.log = test_log;
  host.progress = counting_progress;  // present in memory either way
  return host;
}

}  // namespace

TEST_CASE("a frontend under a 1.0 host table never calls progress") {
  counter = Counter{};
  const mx_host_api old_host = host_table(offsetof(mx_host_api, progress));
  CHECK_FALSE(MX_HOST_API_HAS(&old_host, progress));
  LoadedPlugin plugin(old_host);
  CHECK(plugin.export_model() == 0);
  CHECK(counter.calls == 0);
}

TEST_CASE("under a 1.1 host table it reports lowering and stops when asked") {
  const mx_host_api host = host_table(offsetof(mx_host_api, graph));  // the 1.1 layout
  CHECK(MX_HOST_API_HAS(&host, progress));
  LoadedPlugin plugin(host);
  counter = Counter{};
  CHECK(plugin.export_model() == 0);
  CHECK(counter.calls > 2);
  CHECK(counter.last_done == counter.last_total);

  counter = Counter{};
  counter.answer = 1;  // stop at the first report
  CHECK(plugin.export_model() == MX_ERR_CANCELLED);
  CHECK(counter.calls == 1);  // it stopped there, without lowering on
}
