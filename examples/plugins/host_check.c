/* Host-side check used by test.sh: lists the plugins the SDK discovered
 * (MODELEXPORT_PLUGIN_PATH) and, given a model and a strategy, tags it and
 * prints one line per node: "<node> -> <module> (<evidence>)".
 *
 *   host_check                                  # plugins JSON only
 *   host_check MODEL.onnx STRATEGY [OPTIONS]    # plugins JSON, then records
 */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "modelexport/modelexport.h"

static int fail(mx_status* st) {
  fprintf(stderr, "host_check: %s error: %s\n", mx_code_name(mx_status_code(st)), mx_status_message(st));
  mx_status_release(st);
  return 1;
}

int main(int argc, char** argv) {
  mx_registry* reg = NULL;
  mx_model* model = NULL;
  mx_status* st;
  char* json = NULL;
  size_t n = 0;
  int rc = 0;

  if ((st = mx_registry_create(NULL, &reg))) return fail(st);
  if ((st = mx_registry_plugins_json(reg, &json, &n))) return fail(st);
  printf("%s\n", json);
  mx_free(json);
  if (argc >= 3) {
    cJSON *doc, *nodes, *node;
    if ((st = mx_model_load_file(argv[1], &model)) ||
        (st = mx_registry_tag(reg, argv[2], model, argc > 3 ? argv[3] : NULL)) ||
        (st = mx_model_hierarchy_json(model, &json, &n))) {
      rc = fail(st);
      goto done;
    }
    doc = cJSON_ParseWithLength(json, n);
    mx_free(json);
    nodes = cJSON_GetObjectItemCaseSensitive(doc, "nodes");
    cJSON_ArrayForEach(node, nodes) {
      printf("%s -> %s (%s)\n", cJSON_GetObjectItemCaseSensitive(node, "name")->valuestring,
             cJSON_GetObjectItemCaseSensitive(node, "module")->valuestring,
             cJSON_GetObjectItemCaseSensitive(node, "evidence")->valuestring);
    }
    cJSON_Delete(doc);
  }
done:
  mx_model_release(model);
  mx_registry_release(reg);
  return rc;
}
