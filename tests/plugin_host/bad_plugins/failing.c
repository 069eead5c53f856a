/* Loads fine, but every run fails with its own message. */
#include "plugin_common.h"
static int32_t run(void* s, const char* r, size_t n, mx_plugin_output* out) {
  (void)s, (void)r, (void)n;
  out->error = test_copy("the model is too interesting");
  return 6;
}
MX_PLUGIN_ENTRY {
  TEST_DESCRIPTOR(1, 0, MX_PLUGIN_STRATEGY, "failing", run)
}
