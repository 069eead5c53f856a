/* Loads fine, but answers with text that is not JSON. */
#include "plugin_common.h"
static int32_t run(void* s, const char* r, size_t n, mx_plugin_output* out) {
  (void)s, (void)r, (void)n;
  return test_answer(out, "{\"schema\": \"modelexport.strategy-response/1\", \"assignments\": [");
}
MX_PLUGIN_ENTRY {
  TEST_DESCRIPTOR(1, 0, MX_PLUGIN_STRATEGY, "malformed-json", run)
}
