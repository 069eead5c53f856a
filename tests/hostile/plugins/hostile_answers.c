/* A graph-reader strategy (plugin ABI 1.2) that answers through the host's
 * table with what a careless or hostile plugin passes: which, is chosen by
 * the environment variable MX_HOSTILE_ANSWER (the test sets it before
 * tagging). It returns the host's code, as plugin.h asks. "late" keeps the
 * tables and calls them from destroy, writing what they answered to the
 * file MX_HOSTILE_LATE_OUT names. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modelexport/plugin.h"

static const mx_host_api* g_host;
/* "late": the tables of the last run, called again from destroy. */
static const mx_graph_reader* g_cached_graph;
static const mx_strategy_answer* g_cached_answer;

static void destroy(void* state) {
  (void)state;
  const char* out = getenv("MX_HOSTILE_LATE_OUT");
  if (!g_cached_graph || !g_cached_answer || !out) return;
  mx_text name = g_cached_graph->node_name(g_cached_graph->graph, 0);
  uint64_t count = g_cached_graph->node_count(g_cached_graph->graph);
  int32_t code = g_cached_answer->assign(g_cached_answer->answer, 0, "blk", 3, "direct");
  FILE* f = fopen(out, "w");
  if (!f) return;
  fprintf(f, "count=%llu name=%s assign=%d\n", (unsigned long long)count, name.data ? "text" : "null",
          (int)code);
  fclose(f);
}

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
  if (strcmp(mode, "late") == 0) {
    g_cached_graph = g_host->graph(g_host->host_context);
    g_cached_answer = a;
    return 0;
  }
  return 9;
}

MX_PLUGIN_ENTRY {
  static const mx_plugin_descriptor descriptor = {1,
                                                  2,
                                                  sizeof(mx_plugin_descriptor),
                                                  MX_PLUGIN_STRATEGY,
                                                  MX_PLUGIN_FLAG_GRAPH_READER,
                                                  "hostile-answers",
                                                  "0.0.1",
                                                  "test plugin",
                                                  create,
                                                  destroy,
                                                  run};
  return &descriptor;
}
