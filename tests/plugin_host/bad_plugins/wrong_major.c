/* Built against a future plugin ABI 2.0: must be refused before any other
 * field is read. */
#include "plugin_common.h"
static int32_t run(void* s, const char* r, size_t n, mx_plugin_output* out) {
  (void)s, (void)r, (void)n;
  return test_answer(out, EMPTY_RESPONSE);
}
MX_PLUGIN_ENTRY {
  TEST_DESCRIPTOR(2, 0, MX_PLUGIN_STRATEGY, "wrong-major", run)
}
