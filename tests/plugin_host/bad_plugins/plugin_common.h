/* Shared pieces of the test plugins: a C plugin that answers with a fixed
 * JSON text, so each bad plugin is just a descriptor plus a tweak. */
#ifndef MX_TEST_PLUGIN_COMMON_H
#define MX_TEST_PLUGIN_COMMON_H
#include <string.h>

#include "modelexport/plugin.h"

static const mx_host_api* g_host;

static char* test_copy(const char* text) {
  size_t n = strlen(text);
  char* buffer = (char*)g_host->alloc(n + 1);
  memcpy(buffer, text, n + 1);
  return buffer;
}

static int32_t test_create(const mx_host_api* host, void** state, mx_plugin_output* error) {
  (void)error;
  g_host = host;
  *state = NULL;
  return 0;
}

static int32_t test_answer(mx_plugin_output* out, const char* json) {
  out->json = test_copy(json);
  out->json_size = strlen(json);
  return 0;
}

#define TEST_DESCRIPTOR(major, minor, kind, name, run)                                                \
  static const mx_plugin_descriptor descriptor = {                                                    \
      major, minor, sizeof(mx_plugin_descriptor), kind, 0, name, "0.0.1", "test plugin", test_create, \
      NULL,  run};                                                                                    \
  return &descriptor;

#define EMPTY_RESPONSE "{\"schema\":\"modelexport.strategy-response/1\",\"assignments\":[]}"

#endif
