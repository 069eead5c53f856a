/* A frontend for tests, in plain C: "export" returns the bytes of the file at
 * model_path (the test hands it an ONNX file) and a fixed hierarchy
 * document; "module_tree" returns that document alone. Enough to exercise
 * mx_registry_export / mx_registry_module_tree without LibTorch. */
#include <stdio.h>
#include <stdlib.h>

#include "../bad_plugins/plugin_common.h"

#define FAKE_DOC                                                              \
  "{\"schema\":\"modelexport.hierarchy/1\",\"nodes\":[],"                     \
  "\"modules\":[{\"path\":\"\",\"class\":\"FakeNet\"}]}"

/* The value of "model_path" in the request (no escapes in test paths). */
static int model_path(const char* request, char* out, size_t cap) {
  const char* key = strstr(request, "\"model_path\":\"");
  if (!key) return 0;
  key += strlen("\"model_path\":\"");
  const char* end = strchr(key, '"');
  if (!end || (size_t)(end - key) >= cap) return 0;
  memcpy(out, key, (size_t)(end - key));
  out[end - key] = '\0';
  return 1;
}

static int32_t read_file(const char* path, mx_plugin_output* out) {
  FILE* f = fopen(path, "rb");
  if (!f) return 0;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  out->bytes = (uint8_t*)g_host->alloc((size_t)size);
  out->bytes_size = fread(out->bytes, 1, (size_t)size, f);
  fclose(f);
  return 1;
}

static int32_t run(void* s, const char* request, size_t n, mx_plugin_output* out) {
  (void)s, (void)n;
  if (strstr(request, "\"operation\":\"module_tree\"")) return test_answer(out, FAKE_DOC);
  char path[4096];
  if (!model_path(request, path, sizeof path) || !read_file(path, out)) {
    out->error = test_copy("cannot read model_path");
    return 2;
  }
  return test_answer(out, FAKE_DOC);
}
MX_PLUGIN_ENTRY { TEST_DESCRIPTOR(1, 0, MX_PLUGIN_FRONTEND, "fake", run) }
