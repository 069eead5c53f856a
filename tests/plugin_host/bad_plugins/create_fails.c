/* Its create() refuses to start: the registry records the plugin's reason. */
#include "plugin_common.h"
static int32_t create(const mx_host_api* host, void** state, mx_plugin_output* error) {
  (void)state;
  g_host = host;
  error->error = test_copy("no GPU found");
  return 6;
}
static int32_t run(void* s, const char* r, size_t n, mx_plugin_output* out) {
  (void)s, (void)r, (void)n;
  return test_answer(out, EMPTY_RESPONSE);
}
MX_PLUGIN_ENTRY {
  static const mx_plugin_descriptor descriptor = {1,
                                                  0,
                                                  sizeof(mx_plugin_descriptor),
                                                  MX_PLUGIN_STRATEGY,
                                                  0,
                                                  "create-fails",
                                                  "0.0.1",
                                                  "test plugin",
                                                  create,
                                                  NULL,
                                                  run};
  return &descriptor;
}
