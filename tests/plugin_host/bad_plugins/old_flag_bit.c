/* A 1.1 plugin whose flags happen to have bit 2 set (MX_PLUGIN_FLAG_GRAPH_READER
 * since 1.2, meaningless before): the host must still send it the JSON
 * request and read its JSON answer. It places node 0 when the request has
 * a graph, and fails otherwise. */
#include "plugin_common.h"

static int32_t run(void* s, const char* r, size_t n, mx_plugin_output* out) {
  (void)s, (void)n;
  if (!strstr(r, "\"graph\":")) {
    out->error = test_copy("no graph in the request");
    return 9;
  }
  return test_answer(out,
                     "{\"schema\":\"modelexport.strategy-response/1\",\"assignments\":"
                     "[{\"node\":0,\"module\":\"old\",\"evidence\":\"scope\"}]}");
}

MX_PLUGIN_ENTRY {
  static const mx_plugin_descriptor descriptor = {1,
                                                  1,
                                                  sizeof(mx_plugin_descriptor),
                                                  MX_PLUGIN_STRATEGY,
                                                  2u,
                                                  "old-flag-bit",
                                                  "0.0.1",
                                                  "test plugin",
                                                  test_create,
                                                  NULL,
                                                  run};
  return &descriptor;
}
