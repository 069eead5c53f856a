/* tag_and_print_tree in C: load an ONNX file, tag it with a strategy plugin,
 * print the module tree with node counts (format: ../README.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "modelexport/modelexport.h"

static int fail(mx_status* st) {
  fprintf(stderr, "tag_and_print_tree: %s error: %s\n", mx_code_name(mx_status_code(st)),
          mx_status_message(st));
  mx_status_release(st);
  return 1;
}

static const char* str_or(const cJSON* obj, const char* key, const char* dflt) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) ? v->valuestring : dflt;
}

static int own_count(const cJSON* nodes, const char* path) {
  const cJSON* n;
  int count = 0;
  cJSON_ArrayForEach(n, nodes) {
    if (strcmp(str_or(n, "module", "\x01"), path) == 0) count++;
  }
  return count;
}

static int is_root(const cJSON* m) {
  return strcmp(str_or(m, "path", ""), "") == 0 ||
         !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(m, "parent"));
}

static int is_child(const cJSON* m, const char* parent) {
  return !is_root(m) && strcmp(str_or(m, "parent", ""), parent) == 0;
}

static int total_count(const cJSON* modules, const cJSON* nodes, const char* path) {
  const cJSON* m;
  int total = own_count(nodes, path);
  cJSON_ArrayForEach(m, modules) {
    if (is_child(m, path)) total += total_count(modules, nodes, str_or(m, "path", ""));
  }
  return total;
}

static void print_module(const cJSON* modules, const cJSON* nodes, const cJSON* mod, int depth) {
  const char* path = str_or(mod, "path", "");
  const cJSON* m;
  printf("%*s%s [%s] nodes=%d total=%d\n", depth * 2, "", path[0] ? path : "(root)", str_or(mod, "class", ""),
         own_count(nodes, path), total_count(modules, nodes, path));
  cJSON_ArrayForEach(m, modules) {
    if (is_child(m, path)) print_module(modules, nodes, m, depth + 1);
  }
}

int main(int argc, char** argv) {
  mx_registry* registry = NULL;
  mx_model* model = NULL;
  mx_status* st;
  char* json = NULL;
  size_t size = 0;
  cJSON *doc, *modules, *nodes, *m;

  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: tag_and_print_tree MODEL.onnx STRATEGY [OPTIONS_JSON]\n");
    return 2;
  }
  if ((st = mx_model_load_file(argv[1], &model))) return fail(st);
  if ((st = mx_registry_create(NULL, &registry)) ||
      (st = mx_registry_tag(registry, argv[2], model, argc == 4 ? argv[3] : NULL)) ||
      (st = mx_model_hierarchy_json(model, &json, &size))) {
    mx_registry_release(registry);
    mx_model_release(model);
    return fail(st);
  }
  doc = cJSON_ParseWithLength(json, size);
  mx_free(json);
  mx_registry_release(registry);
  mx_model_release(model);
  if (!doc) {
    fprintf(stderr, "tag_and_print_tree: parse error: invalid hierarchy JSON\n");
    return 1;
  }
  modules = cJSON_GetObjectItemCaseSensitive(doc, "modules");
  nodes = cJSON_GetObjectItemCaseSensitive(doc, "nodes");
  printf("modules=%d nodes=%d\n", cJSON_GetArraySize(modules), cJSON_GetArraySize(nodes));
  cJSON_ArrayForEach(m, modules) {
    if (is_root(m)) print_module(modules, nodes, m, 0);
  }
  cJSON_Delete(doc);
  return 0;
}
