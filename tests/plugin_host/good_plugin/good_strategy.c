/* A well-behaved strategy written in plain C: places every node whose
 * op_type is "MatMul" in module "good.matmul" with evidence "parameter".
 * It does not declare MX_PLUGIN_FLAG_THREAD_SAFE, so the host must
 * serialise its runs: it notices overlapping calls (a flag held across a
 * short sleep) and fails them, which the thread test turns into a check. */
#define _POSIX_C_SOURCE 199309L /* nanosleep under -std=c99 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../bad_plugins/plugin_common.h"

static volatile int g_in_run;

static int32_t answer(const char* request, size_t n, mx_plugin_output* out);

static int32_t run(void* s, const char* request, size_t n, mx_plugin_output* out) {
  (void)s;
  if (g_in_run) {
    out->error = test_copy("run() entered concurrently although not thread-safe");
    return 9;
  }
  g_in_run = 1;
  struct timespec pause = {0, 2000000}; /* 2 ms: widens any overlap window */
  nanosleep(&pause, NULL);
  int32_t rc = answer(request, n, out);
  g_in_run = 0;
  return rc;
}

static int32_t answer(const char* request, size_t n, mx_plugin_output* out) {
  /* Find nodes by scanning the request text for "op_type":"MatMul" after
   * each "index":<k> — enough for the tests' small graphs. */
  char* buffer = (char*)malloc(n * 2 + 256);
  size_t used = 0;
  used += (size_t)sprintf(buffer, "{\"schema\":\"modelexport.strategy-response/1\",\"assignments\":[");
  const char* p = request;
  int first = 1;
  while ((p = strstr(p, "\"index\":")) != NULL) {
    long index = strtol(p + 8, NULL, 10);
    const char* next = strstr(p + 8, "\"index\":");
    const char* op = strstr(p, "\"op_type\":\"MatMul\"");
    if (op && (!next || op < next)) {
      used += (size_t)sprintf(buffer + used,
                              "%s{\"node\":%ld,\"module\":\"good.matmul\",\"evidence\":\"parameter\"}",
                              first ? "" : ",", index);
      first = 0;
    }
    p += 8;
  }
  sprintf(buffer + used, "],\"modules\":[{\"path\":\"good\",\"class\":\"GoodBlock\"}]}");
  int32_t rc = test_answer(out, buffer);
  free(buffer);
  return rc;
}
MX_PLUGIN_ENTRY {
  TEST_DESCRIPTOR(1, 0, MX_PLUGIN_STRATEGY, "good", run)
}
