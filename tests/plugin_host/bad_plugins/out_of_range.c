/* Loads fine, but answers a node index that does not exist. */
#include "plugin_common.h"
static int32_t run(void* s, const char* r, size_t n, mx_plugin_output* out) {
  (void)s, (void)r, (void)n;
  return test_answer(out,
                     "{\"schema\":\"modelexport.strategy-response/1\",\"assignments\":"
                     "[{\"node\":100000,\"module\":\"a\",\"evidence\":\"scope\"}]}");
}
MX_PLUGIN_ENTRY {
  TEST_DESCRIPTOR(1, 0, MX_PLUGIN_STRATEGY, "out-of-range", run)
}
