// A strategy written in C++ that breaks plugin.h's rule "no exception
// through the C ABI": the function named by the environment variable
// MX_HOSTILE_THROW ("create", "run", "run_int", "destroy") throws. Built
// with unwind tables (the default), so the exception reaches the host,
// which must report it as the plugin's failure and never terminate.
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "modelexport/plugin.h"

namespace {

bool throws_in(const char* function) {
  const char* mode = std::getenv("MX_HOSTILE_THROW");
  return mode && std::strcmp(mode, function) == 0;
}

int32_t create(const mx_host_api*, void** state, mx_plugin_output*) {
  if (throws_in("create")) throw std::runtime_error("thrown by create");
  *state = nullptr;
  return 0;
}

void destroy(void*) {
  if (throws_in("destroy")) throw std::runtime_error("thrown by destroy");
}

int32_t run(void*, const char*, size_t, mx_plugin_output*) {
  if (throws_in("run")) throw std::length_error("thrown by run");
  if (throws_in("run_int")) throw 42;
  return 9;
}

}  // namespace

MX_PLUGIN_ENTRY {
  static const mx_plugin_descriptor descriptor = {1,
                                                  2,
                                                  sizeof(mx_plugin_descriptor),
                                                  MX_PLUGIN_STRATEGY,
                                                  0,
                                                  "hostile-throwing",
                                                  "0.0.1",
                                                  "test plugin",
                                                  create,
                                                  destroy,
                                                  run};
  return &descriptor;
}
