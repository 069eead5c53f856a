/*
 * modelexport — plugin API (C99).
 *
 * A plugin is a shared library that exports one C function,
 *
 *     const mx_plugin_descriptor* modelexport_plugin_entry(void);
 *
 * (name in MX_PLUGIN_ENTRY_SYMBOL). The host loads the library, calls the
 * entry point, checks `abi_major`/`abi_minor` before reading anything else,
 * and then talks to the plugin only through the descriptor's function
 * pointers, exchanging JSON (and, for frontends, ONNX bytes). A plugin never
 * links libmodelexport; what it needs from the host comes in the
 * mx_host_api table handed to `create` (the SQLite sqlite3_api_routines
 * idea). Plugins can therefore be written in C, C++ or Rust.
 *
 * Compatibility rule: the host accepts a plugin whose abi_major equals the
 * host's and whose abi_minor is <= the host's. Newer minors may append
 * fields to the end of the structs below; `struct_size` tells which exist.
 *
 * Request / response schemas: docs/plugin-protocol.md.
 */
#ifndef MODELEXPORT_PLUGIN_H
#define MODELEXPORT_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "modelexport/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MX_PLUGIN_ABI_MAJOR 1
#define MX_PLUGIN_ABI_MINOR 1
#define MX_PLUGIN_ENTRY_SYMBOL "modelexport_plugin_entry"

typedef enum mx_plugin_kind {
  MX_PLUGIN_FRONTEND = 1, /* source model file -> ONNX bytes + hierarchy  */
  MX_PLUGIN_STRATEGY = 2  /* graph view JSON -> node -> module assignments */
} mx_plugin_kind;

/* Plugin flags. */
#define MX_PLUGIN_FLAG_THREAD_SAFE 1u /* `run` may be called concurrently */

/* Functions the host offers to a plugin. Buffers a plugin returns in
 * mx_plugin_output MUST be allocated with `alloc`: the host frees them. */
typedef struct mx_host_api {
  uint32_t struct_size; /* sizeof(mx_host_api) as the host compiled it */
  uint32_t abi_major;
  uint32_t abi_minor;
  const char* host_version; /* "0.1.0" */
  void* (*alloc)(size_t size);
  void (*free)(void* buffer);
  /* level: 0 debug, 1 info, 2 warning, 3 error. */
  void (*log)(void* host_context, int32_t level, const char* message);
  void* host_context;

  /* ---- Added in plugin ABI 1.1: progress ------------------------------
   * Present only when MX_HOST_API_HAS(host, progress): a plugin built
   * against 1.1 that runs under a 1.0 host must check before calling.
   *
   * Reports how far the current `run` is: `stage` names the step
   * (docs/plugin-protocol.md lists the frontends' stages: "walk" for the
   * TorchScript graph walk, "lower" for torch.export lowering), `unit` what
   * is counted ("ops", "nodes", "bytes"; "" when nothing is), `done` out of
   * `total` (0 = unknown). Call it from the thread executing `run`, while
   * `run` executes; calls from other threads or outside a run are ignored.
   * It is cheap (a thread-local check when nobody listens; the host
   * throttles what reaches the user), so calling it once per op is fine.
   * Returns 0 to go on; non-zero when the caller asked to cancel: the
   * plugin should then stop and return MX_ERR_CANCELLED (the host discards
   * whatever a cancelled run answers, so stopping early only saves time). */
  int32_t (*progress)(void* host_context, const char* stage, const char* unit,
                      uint64_t done, uint64_t total);
} mx_host_api;

/* 1 if the host's table contains `member` (a field appended by a newer
 * minor than the host may have been built with), e.g.
 *   if (MX_HOST_API_HAS(host, progress)) host->progress(...); */
#define MX_HOST_API_HAS(host, member)                      \
  ((host)->struct_size >= offsetof(mx_host_api, member) + \
                              sizeof(((mx_host_api*)0)->member))

/* What a call returns. The plugin fills the fields it produces (allocated
 * with mx_host_api.alloc) and returns a code from mx_code (0 = success).
 * On failure, `error` holds a UTF-8 message naming the problem. */
typedef struct mx_plugin_output {
  char* json;           /* NUL-terminated JSON response            */
  size_t json_size;     /* bytes, excluding the NUL                */
  uint8_t* bytes;       /* binary payload (a frontend's ONNX model) */
  size_t bytes_size;
  char* error;          /* NUL-terminated message on failure       */
} mx_plugin_output;

typedef struct mx_plugin_descriptor {
  /* Read first, before anything else in this struct. */
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t struct_size; /* sizeof(mx_plugin_descriptor) as compiled */
  uint32_t kind;        /* mx_plugin_kind */
  uint32_t flags;       /* MX_PLUGIN_FLAG_* */
  const char* name;        /* unique, [a-z0-9_-]+, e.g. "torchscript" */
  const char* version;     /* plugin's own version, e.g. "1.2.0"      */
  const char* description; /* one line                                */

  /* Creates the plugin's state. Called once after the ABI check.
   * Return 0 on success; a non-zero code refuses the plugin with `error`. */
  int32_t (*create)(const mx_host_api* host, void** state,
                    mx_plugin_output* error);
  /* Releases the state; called once at unload. May be NULL. */
  void (*destroy)(void* state);
  /* Handles one request (JSON, see docs/plugin-protocol.md). */
  int32_t (*run)(void* state, const char* request_json, size_t request_size,
                 mx_plugin_output* output);
} mx_plugin_descriptor;

typedef const mx_plugin_descriptor* (*mx_plugin_entry_fn)(void);

/* Declare the entry point in a plugin:
 *   MX_PLUGIN_ENTRY { static const mx_plugin_descriptor d = {...}; return &d; } */
#ifdef __cplusplus
#  define MX_PLUGIN_EXTERN_C extern "C"
#else
#  define MX_PLUGIN_EXTERN_C
#endif
#define MX_PLUGIN_ENTRY                        \
  MX_PLUGIN_EXTERN_C MX_PLUGIN_EXPORT const mx_plugin_descriptor* \
  modelexport_plugin_entry(void)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODELEXPORT_PLUGIN_H */
