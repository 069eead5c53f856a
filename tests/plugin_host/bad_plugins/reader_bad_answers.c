/* A plugin ABI 1.2 graph reader (MX_PLUGIN_FLAG_GRAPH_READER) that answers
 * through the host's sink, badly: which mistake depends on the first
 * node's name, so one library covers every refusal of the sink. In JSON
 * mode (the host was told "graph_reader": false) it answers nothing. */
#include "plugin_common.h"

static int32_t run(void* s, const char* r, size_t n, mx_plugin_output* out) {
  (void)s, (void)r, (void)n;
  const mx_graph_reader* graph = g_host->graph(g_host->host_context);
  const mx_strategy_answer* answer = g_host->answer(g_host->host_context);
  if (!graph || !answer) return test_answer(out, EMPTY_RESPONSE);
  uint64_t count = graph->node_count(graph->graph);
  /* Out-of-range reads answer empty, never crash. */
  mx_text none = graph->node_name(graph->graph, count + 5);
  if (none.data != NULL || none.size != 0 || graph->initializer_dim(graph->graph, 999999, 0) != -1) {
    out->error = test_copy("reader answered something out of range");
    return 9;
  }
  int32_t code = answer->assign(answer->answer, 0, "a", 1, "scope");
  if (code) return code;
  /* Then a second answer for node 0, which the host must refuse; the
   * plugin returns the host's code, as the header asks. */
  code = answer->assign(answer->answer, 0, "b", 1, "scope");
  if (code) return code;
  out->error = test_copy("the host accepted node 0 twice");
  return 9;
}

MX_PLUGIN_ENTRY {
  static const mx_plugin_descriptor descriptor = {1,
                                                  2,
                                                  sizeof(mx_plugin_descriptor),
                                                  MX_PLUGIN_STRATEGY,
                                                  MX_PLUGIN_FLAG_GRAPH_READER,
                                                  "reader-bad-answers",
                                                  "0.0.1",
                                                  "test plugin",
                                                  test_create,
                                                  NULL,
                                                  run};
  return &descriptor;
}
