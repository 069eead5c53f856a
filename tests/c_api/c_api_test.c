/* Exercises the public C API from strict C99: both public headers must
 * compile with -std=c99 -Wall -Wextra -pedantic -Werror, and the calls
 * must behave as documented. Usage: c_api_test FIXTURE.onnx OUTDIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modelexport/modelexport.h"
#include "modelexport/plugin.h"

static int failures = 0;

#define EXPECT(cond)                                                      \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                         \
    }                                                                     \
  } while (0)

/* Succeeds or reports the status message; releases the status. */
static int ok(mx_status* st, const char* what) {
  if (st == NULL) return 1;
  fprintf(stderr, "%s failed: [%s] %s\n", what, mx_code_name(mx_status_code(st)), mx_status_message(st));
  mx_status_release(st);
  ++failures;
  return 0;
}

static char* read_all(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  char* data;
  long n;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  data = (char*)malloc((size_t)n);
  if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

static void test_errors(void) {
  mx_model* model = NULL;
  mx_status* st = mx_model_load_file("/nonexistent/model.onnx", &model);
  EXPECT(mx_status_code(st) == MX_ERR_IO);
  EXPECT(strstr(mx_status_message(st), "model.onnx") != NULL);
  EXPECT(strcmp(mx_code_name(mx_status_code(st)), "io") == 0);
  EXPECT(model == NULL);
  mx_status_release(st);
  st = mx_model_load_bytes("garbage", 7, &model);
  EXPECT(mx_status_code(st) == MX_ERR_PARSE);
  mx_status_release(st);
  /* Every release accepts NULL. */
  mx_status_release(NULL);
  mx_model_release(NULL);
  mx_registry_release(NULL);
  mx_free(NULL);
  EXPECT(mx_status_code(NULL) == MX_OK);
  EXPECT(strcmp(mx_status_message(NULL), "") == 0);
}

static void test_model(const char* fixture, const char* outdir) {
  size_t size = 0, json_size = 0, bytes_size = 0;
  char* data = read_all(fixture, &size);
  mx_model* model = NULL;
  mx_model* again = NULL;
  char* json = NULL;
  void* bytes = NULL;
  char path[4096];
  const char* record = "{\"module\":\"act\",\"evidence\":\"direct\"}";
  EXPECT(data != NULL);
  if (!data || !ok(mx_model_load_bytes(data, size, &model), "load_bytes")) return;
  free(data);

  EXPECT(mx_model_node_count(model) == 3);
  EXPECT(mx_model_has_hierarchy(model) == 1);
  if (ok(mx_model_node_json(model, 0, &json, &json_size), "node_json")) {
    EXPECT(strstr(json, "\"op_type\":\"MatMul\"") != NULL);
    EXPECT(strstr(json, "modelexport.module") != NULL);
    EXPECT(strlen(json) == json_size);
    mx_free(json);
  }
  if (ok(mx_model_node_record(model, "/fc/MatMul", &json, &json_size), "node_record")) {
    EXPECT(strcmp(json, "{\"module\":\"fc\",\"tag\":\"/TinyNet/Linear\",\"evidence\":\"direct\"}") == 0);
    mx_free(json);
  }
  ok(mx_model_set_node_record(model, "/act/Relu", record, strlen(record)), "set_node_record");
  if (ok(mx_model_node_record(model, "/act/Relu", &json, NULL), "node_record")) {
    EXPECT(strstr(json, "\"evidence\":\"direct\"") != NULL);
    mx_free(json);
  }
  ok(mx_model_check(model), "check");

  if (ok(mx_model_save_bytes(model, "{\"tag_storage\":\"doc_string\"}", &bytes, &bytes_size), "save_bytes")) {
    if (ok(mx_model_load_bytes(bytes, bytes_size, &again), "reload")) {
      EXPECT(mx_model_has_hierarchy(again) == 1);
      mx_model_release(again);
    }
    mx_free(bytes);
  }
  snprintf(path, sizeof path, "%s/c_api_out.onnx", outdir);
  ok(mx_model_save_file(model, path, NULL), "save_file");
  mx_model_release(model);
}

int main(int argc, char** argv) {
  uint32_t major = 0, minor = 0, patch = 0;
  if (argc < 3) {
    fprintf(stderr, "usage: c_api_test FIXTURE.onnx OUTDIR\n");
    return 2;
  }
  mx_version(&major, &minor, &patch);
  EXPECT(major == MX_VERSION_MAJOR);
  EXPECT(mx_version_string()[0] != '\0');
  EXPECT(MX_PLUGIN_ABI_MAJOR == 1);
  test_errors();
  test_model(argv[1], argv[2]);
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  else printf("c_api_test: all checks passed\n");
  return failures ? 1 : 0;
}
