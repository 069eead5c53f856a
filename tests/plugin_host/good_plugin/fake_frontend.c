/* A frontend for tests, in plain C: "export" returns the bytes of the file at
 * model_path (the test hands it an ONNX file) and a fixed hierarchy
 * document; "module_tree" returns that document alone. Enough to exercise
 * mx_registry_export / mx_registry_module_tree without LibTorch.
 * With "external_data": true it answers a file instead of bytes, as the
 * protocol's large-model path does: the model is copied to
 * <output_dir>/model.onnx and named by "onnx_file" (or, when model_path
 * contains "outside", "onnx_file" names model_path itself: a bad answer).
 * With "output_dir_references" (weights by reference into output_dir), a
 * model whose bytes hold "@@@@@@" gets those six characters replaced by the
 * output_dir's own last six (the random part of its name), and the file
 * <model_path>.outdir is copied to <output_dir>/permuted.data (or linked
 * there when model_path contains "symlink"): the model's external
 * locations can then name that file.
 * "export" reports progress ("fake", 0..3 of 3 "steps") when the host has
 * the 1.1 progress function, and ignores the answer, as a frontend that
 * cannot stop early would: the host must cancel all the same. */
#define _POSIX_C_SOURCE 200809L /* symlink */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../bad_plugins/plugin_common.h"

#define FAKE_DOC                                          \
  "{\"schema\":\"modelexport.hierarchy/1\",\"nodes\":[]," \
  "\"modules\":[{\"path\":\"\",\"class\":\"FakeNet\"}]}"

/* The string value of `key` ("\"name\":\"") in the request (no escapes in
 * test paths). */
static int string_value(const char* request, const char* name, char* out, size_t cap) {
  const char* key = strstr(request, name);
  if (!key) return 0;
  key += strlen(name);
  const char* end = strchr(key, '"');
  if (!end || (size_t)(end - key) >= cap) return 0;
  memcpy(out, key, (size_t)(end - key));
  out[end - key] = '\0';
  return 1;
}

static int model_path(const char* request, char* out, size_t cap) {
  return string_value(request, "\"model_path\":\"", out, cap);
}

static int copy_file(const char* from, const char* to) {
  FILE* in = fopen(from, "rb");
  if (!in) return 0;
  FILE* out = fopen(to, "wb");
  if (!out) {
    fclose(in);
    return 0;
  }
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, in)) > 0) fwrite(buffer, 1, n, out);
  fclose(in);
  return fclose(out) == 0;
}

/* {"onnx_file":"<file>", <the keys of FAKE_DOC>} */
static int32_t answer_file(mx_plugin_output* out, const char* file) {
  char json[8192];
  snprintf(json, sizeof json, "{\"onnx_file\":\"%s\",%s", file, FAKE_DOC + 1);
  return test_answer(out, json);
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

/* See the header: the model's "@@@@@@" become the output_dir's suffix,
 * <model_path>.outdir goes to <output_dir>/permuted.data. */
static int refer_to_output_dir(const char* request, const char* path, mx_plugin_output* out) {
  char dir[4096], from[4200], to[4200];
  if (!strstr(request, "\"output_dir_references\":true") ||
      !string_value(request, "\"output_dir\":\"", dir, sizeof dir) || strlen(dir) < 6)
    return 1;
  const char* suffix = dir + strlen(dir) - 6;
  for (size_t i = 0; i + 6 <= out->bytes_size; ++i)
    if (memcmp(out->bytes + i, "@@@@@@", 6) == 0) memcpy(out->bytes + i, suffix, 6);
  snprintf(from, sizeof from, "%s.outdir", path);
  snprintf(to, sizeof to, "%s/permuted.data", dir);
  if (strstr(path, "symlink")) return symlink(from, to) == 0;
  FILE* probe = fopen(from, "rb");
  if (!probe) return 1;
  fclose(probe);
  return copy_file(from, to);
}

static int32_t run(void* s, const char* request, size_t n, mx_plugin_output* out) {
  (void)s, (void)n;
  if (strstr(request, "\"operation\":\"module_tree\"")) return test_answer(out, FAKE_DOC);
  char path[4096];
  if (strstr(request, "\"external_data\":true")) {
    char dir[4096], file[4200];
    if (!model_path(request, path, sizeof path) ||
        !string_value(request, "\"output_dir\":\"", dir, sizeof dir)) {
      out->error = test_copy("external data without output_dir");
      return 6; /* MX_ERR_UNSUPPORTED */
    }
    if (strstr(path, "outside")) return answer_file(out, path);
    snprintf(file, sizeof file, "%s/model.onnx", dir);
    if (!copy_file(path, file)) {
      out->error = test_copy("cannot write into output_dir");
      return 2;
    }
    return answer_file(out, file);
  }
  if (MX_HOST_API_HAS(g_host, progress) && g_host->progress)
    for (uint64_t step = 0; step <= 3; ++step)
      g_host->progress(g_host->host_context, "fake", "steps", step, 3);
  if (!model_path(request, path, sizeof path) || !read_file(path, out)) {
    out->error = test_copy("cannot read model_path");
    return 2;
  }
  if (!refer_to_output_dir(request, path, out)) {
    out->error = test_copy("cannot write into output_dir");
    return 2;
  }
  return test_answer(out, FAKE_DOC);
}
MX_PLUGIN_ENTRY {
  TEST_DESCRIPTOR(1, 1, MX_PLUGIN_FRONTEND, "fake", run)
}
