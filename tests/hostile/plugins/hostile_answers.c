/* A graph-reader strategy (plugin ABI 1.2) that answers through the host's
 * table with what a careless or hostile plugin passes: which, is chosen by
 * the environment variable MX_HOSTILE_ANSWER (the test sets it before
 * tagging). It returns the host's code, as plugin.h asks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "modelexport/plugin.h"

static const mx_host_api* g_host;

static int32_t create(const mx_host_api* host, void** state, mx_plugin_output* error) {
  (void)error;
  g_host = host;
  *state = NULL;
  return 0;
}

static int32_t run(void* state, const char* request, size_t size, mx_plugin_output* out) {
  (void)state, (void)request, (void)size, (void)out;
  const mx_strategy_answer* a = g_host->answer(g_host->host_context);
  const char* mode = getenv("MX_HOSTILE_ANSWER");
  if (!a || !mode) return 9;
  if (strcmp(mode, "path_size_max") == 0) return a->assign(a->answer, 0, "blk", SIZE_MAX, "direct");
  if (strcmp(mode, "class_size_max") == 0) return a->module_class(a->answer, "blk", 3, "Blk", SIZE_MAX);
  if (strcmp(mode, "path_not_utf8") == 0) return a->assign(a->answer, 0, "bl\xff\xfe", 4, "direct");
  if (strcmp(mode, "node_max") == 0) return a->assign(a->answer, UINT64_MAX, "blk", 3, "direct");
  return 9;
}

MX_PLUGIN_ENTRY {
  static const mx_plugin_descriptor descriptor = {
      1, 2, sizeof(mx_plugin_descriptor), MX_PLUGIN_STRATEGY, MX_PLUGIN_FLAG_GRAPH_READER,
      "hostile-answers", "0.0.1", "test plugin", create, NULL, run};
  return &descriptor;
}
