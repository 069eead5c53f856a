/* Claims the name "scope" already taken by the real scope strategy. */
#include "plugin_common.h"
static int32_t run(void* s, const char* r, size_t n, mx_plugin_output* out) {
  (void)s, (void)r, (void)n;
  return test_answer(out, EMPTY_RESPONSE);
}
MX_PLUGIN_ENTRY {
  TEST_DESCRIPTOR(1, 0, MX_PLUGIN_STRATEGY, "scope", run)
}
