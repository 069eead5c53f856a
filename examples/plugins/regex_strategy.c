/*
 * "regex" — a third-party modelexport strategy plugin, written in C against
 * the public plugin header only (modelexport/plugin.h; no libmodelexport).
 *
 * It places every node whose name matches a POSIX extended regular
 * expression into the module spelled by one capture group of that match.
 * The default recognises Keras/TensorFlow-style names:
 *
 *     model/dense_1/MatMul          -> module "dense_1"
 *     model/block_2/conv/Conv2D     -> module "block_2.conv"
 *     Identity                      -> (no match: left to the core's propagation)
 *
 * Options (the "strategy_options" object in the options of mx_registry_tag),
 * all optional; unknown keys are an error:
 *   "pattern":   POSIX ERE matched against the node name
 *                (default "^[^/]+/(.+)/[^/]+$": drop the model name and the op)
 *   "group":     which capture group holds the module path (default 1)
 *   "separator": separator of the captured text, replaced by "." (default "/")
 *   "prefix":    string prepended to every module path (default "")
 *
 * Build knobs used by examples/plugins/test.sh to make a deliberately broken
 * copy: REGEX_PLUGIN_ABI_MAJOR overrides the descriptor's abi_major, and
 * REGEX_PLUGIN_NAME its name.
 */
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "modelexport/plugin.h"

#ifndef REGEX_PLUGIN_ABI_MAJOR
#define REGEX_PLUGIN_ABI_MAJOR MX_PLUGIN_ABI_MAJOR
#endif
#ifndef REGEX_PLUGIN_NAME
#define REGEX_PLUGIN_NAME "regex"
#endif

#define DEFAULT_PATTERN "^[^/]+/(.+)/[^/]+$"

/* mx_code values (modelexport.h) used in answers; the plugin header does not
 * include the SDK header, so they are restated here. */
enum { CODE_INVALID_ARGUMENT = 1, CODE_PARSE = 3, CODE_UNSUPPORTED = 6, CODE_INTERNAL = 9 };

typedef struct regex_state {
  const mx_host_api* host;
} regex_state;

/* Copies a NUL-terminated string into a host-allocated buffer. */
static char* host_strdup(const mx_host_api* host, const char* s, size_t* size) {
  size_t n = strlen(s);
  char* p = (char*)host->alloc(n + 1);
  if (p) memcpy(p, s, n + 1);
  if (size) *size = n;
  return p;
}

static int32_t fail(const mx_host_api* host, mx_plugin_output* out, int32_t code, const char* message) {
  out->error = host_strdup(host, message, NULL);
  return code;
}

static int32_t regex_create(const mx_host_api* host, void** state, mx_plugin_output* error) {
  regex_state* s;
  if (!host || host->struct_size < sizeof(mx_host_api) - sizeof(void*) || !host->alloc) {
    (void)error; /* cannot allocate an error message without alloc */
    return CODE_INTERNAL;
  }
  s = (regex_state*)calloc(1, sizeof *s);
  if (!s) return fail(host, error, CODE_INTERNAL, "regex: out of memory");
  s->host = host;
  *state = s;
  return 0;
}

static void regex_destroy(void* state) {
  free(state);
}

/* Options parsed from the request. */
typedef struct options {
  const char* pattern;
  int group;
  const char* separator;
  const char* prefix;
} options;

static int parse_options(const cJSON* obj, options* o, char* why, size_t why_size) {
  const cJSON* item;
  o->pattern = DEFAULT_PATTERN;
  o->group = 1;
  o->separator = "/";
  o->prefix = "";
  if (!obj || cJSON_IsNull(obj)) return 1;
  if (!cJSON_IsObject(obj)) {
    snprintf(why, why_size, "regex: options must be a JSON object");
    return 0;
  }
  cJSON_ArrayForEach(item, obj) {
    const char* k = item->string;
    if (strcmp(k, "pattern") == 0 && cJSON_IsString(item)) {
      o->pattern = item->valuestring;
    } else if (strcmp(k, "group") == 0 && cJSON_IsNumber(item) && item->valueint >= 0 &&
               item->valueint < 10) {
      o->group = item->valueint;
    } else if (strcmp(k, "separator") == 0 && cJSON_IsString(item) && item->valuestring[0] != '\0') {
      o->separator = item->valuestring;
    } else if (strcmp(k, "prefix") == 0 && cJSON_IsString(item)) {
      o->prefix = item->valuestring;
    } else if (strcmp(k, "pattern") == 0 || strcmp(k, "group") == 0 || strcmp(k, "separator") == 0 ||
               strcmp(k, "prefix") == 0) {
      snprintf(why, why_size,
               "regex: option '%s' has the wrong type (pattern, separator, prefix: strings; group: 0..9)", k);
      return 0;
    } else {
      snprintf(why, why_size, "regex: unknown option '%s' (known: pattern, group, separator, prefix)", k);
      return 0;
    }
  }
  return 1;
}

/* Builds prefix + captured text with every separator replaced by '.'. */
static char* module_path(const char* name, const regmatch_t* m, const options* o) {
  size_t len = (size_t)(m->rm_eo - m->rm_so);
  size_t sep = strlen(o->separator);
  size_t plen = strlen(o->prefix);
  char* out = (char*)malloc(plen + len + 1);
  size_t i = 0, w = 0;
  if (!out) return NULL;
  memcpy(out, o->prefix, plen);
  w = plen;
  while (i < len) {
    const char* p = name + m->rm_so + i;
    if (i + sep <= len && strncmp(p, o->separator, sep) == 0) {
      out[w++] = '.';
      i += sep;
    } else {
      out[w++] = *p;
      i++;
    }
  }
  out[w] = '\0';
  return out;
}

static int32_t regex_run(void* state, const char* request_json, size_t request_size,
                         mx_plugin_output* output) {
  const mx_host_api* host = ((regex_state*)state)->host;
  char why[512];
  int32_t rc = 0;
  cJSON* req = cJSON_ParseWithLength(request_json, request_size);
  cJSON* resp = NULL;
  cJSON* assignments;
  const cJSON *schema, *operation, *graph, *nodes, *node;
  options o;
  regex_t re;
  int compiled = 0;
  char* text;

  if (!req) return fail(host, output, CODE_PARSE, "regex: request is not valid JSON");
  schema = cJSON_GetObjectItemCaseSensitive(req, "schema");
  operation = cJSON_GetObjectItemCaseSensitive(req, "operation");
  if (!cJSON_IsString(schema) || strcmp(schema->valuestring, "modelexport.strategy-request/1") != 0) {
    rc = fail(host, output, CODE_UNSUPPORTED, "regex: expected schema modelexport.strategy-request/1");
    goto done;
  }
  if (!cJSON_IsString(operation) || strcmp(operation->valuestring, "assign") != 0) {
    snprintf(why, sizeof why, "regex: unsupported operation '%s' (only 'assign')",
             cJSON_IsString(operation) ? operation->valuestring : "?");
    rc = fail(host, output, CODE_UNSUPPORTED, why);
    goto done;
  }
  if (!parse_options(cJSON_GetObjectItemCaseSensitive(req, "options"), &o, why, sizeof why)) {
    rc = fail(host, output, CODE_INVALID_ARGUMENT, why);
    goto done;
  }
  {
    int err = regcomp(&re, o.pattern, REG_EXTENDED);
    if (err != 0) {
      char msg[256];
      regerror(err, &re, msg, sizeof msg);
      snprintf(why, sizeof why, "regex: invalid pattern '%s': %s", o.pattern, msg);
      rc = fail(host, output, CODE_INVALID_ARGUMENT, why);
      goto done;
    }
    compiled = 1;
    if ((size_t)o.group > re.re_nsub) {
      snprintf(why, sizeof why, "regex: group %d requested but pattern '%s' has %zu group(s)", o.group,
               o.pattern, (size_t)re.re_nsub);
      rc = fail(host, output, CODE_INVALID_ARGUMENT, why);
      goto done;
    }
  }
  graph = cJSON_GetObjectItemCaseSensitive(req, "graph");
  nodes = cJSON_GetObjectItemCaseSensitive(graph, "nodes");
  if (!cJSON_IsArray(nodes)) {
    rc = fail(host, output, CODE_INVALID_ARGUMENT, "regex: request has no graph.nodes array");
    goto done;
  }

  resp = cJSON_CreateObject();
  cJSON_AddStringToObject(resp, "schema", "modelexport.strategy-response/1");
  assignments = cJSON_AddArrayToObject(resp, "assignments");
  cJSON_ArrayForEach(node, nodes) {
    const cJSON* name = cJSON_GetObjectItemCaseSensitive(node, "name");
    const cJSON* index = cJSON_GetObjectItemCaseSensitive(node, "index");
    regmatch_t m[10];
    char* path;
    cJSON* a;
    if (!cJSON_IsString(name) || !cJSON_IsNumber(index)) continue;
    if (regexec(&re, name->valuestring, 10, m, 0) != 0 || m[o.group].rm_so < 0) continue;
    path = module_path(name->valuestring, &m[o.group], &o);
    if (!path) {
      rc = fail(host, output, CODE_INTERNAL, "regex: out of memory");
      goto done;
    }
    a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "node", index->valuedouble);
    cJSON_AddStringToObject(a, "module", path);
    cJSON_AddStringToObject(a, "evidence", "scope");
    cJSON_AddItemToArray(assignments, a);
    free(path);
  }
  text = cJSON_PrintUnformatted(resp);
  if (!text) {
    rc = fail(host, output, CODE_INTERNAL, "regex: out of memory");
    goto done;
  }
  output->json = host_strdup(host, text, &output->json_size);
  cJSON_free(text);
  if (!output->json) rc = CODE_INTERNAL;

done:
  if (compiled) regfree(&re);
  cJSON_Delete(resp);
  cJSON_Delete(req);
  return rc;
}

MX_PLUGIN_ENTRY {
  static const mx_plugin_descriptor descriptor = {
      REGEX_PLUGIN_ABI_MAJOR,
      MX_PLUGIN_ABI_MINOR,
      sizeof(mx_plugin_descriptor),
      MX_PLUGIN_STRATEGY,
      MX_PLUGIN_FLAG_THREAD_SAFE,
      REGEX_PLUGIN_NAME,
      "1.0.0",
      "node names matching a POSIX regular expression (default: Keras/TF model/layer/Op) -> module path",
      regex_create,
      regex_destroy,
      regex_run,
  };
  return &descriptor;
}
