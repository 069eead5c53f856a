/* Built against plugin ABI 1.5: newer than the host, refused. */
#include "plugin_common.h"
static int32_t run(void* s, const char* r, size_t n, mx_plugin_output* out) {
  (void)s, (void)r, (void)n;
  return test_answer(out, EMPTY_RESPONSE);
}
MX_PLUGIN_ENTRY {
  TEST_DESCRIPTOR(1, 5, MX_PLUGIN_STRATEGY, "newer-minor", run)
}
