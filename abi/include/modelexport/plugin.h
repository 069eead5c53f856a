/**
 * @file plugin.h
 * @brief modelexport — plugin API (C99).
 *
 * A plugin is a shared library that exports one C function,
 *
 *     const mx_plugin_descriptor* modelexport_plugin_entry(void);
 *
 * (name in MX_PLUGIN_ENTRY_SYMBOL). The host loads the library, calls the
 * entry point, checks `abi_major`/`abi_minor` before reading anything else,
 * and then talks to the plugin only through the descriptor's function
 * pointers, exchanging JSON (and, for frontends, ONNX bytes; since 1.2 a
 * strategy may read the graph through host functions instead). A plugin never
 * links libmodelexport; what it needs from the host comes in the
 * mx_host_api table handed to `create` (the SQLite sqlite3_api_routines
 * idea). Plugins can therefore be written in C, C++ or Rust.
 *
 * Compatibility rule: the host accepts a plugin whose abi_major equals the
 * host's and whose abi_minor is <= the host's. Newer minors may append
 * fields to the end of the structs below; `struct_size` tells which exist.
 *
 * Ownership: what the host lends a plugin (the request, texts of the
 * graph reader, the host table) stays the host's; what a plugin returns in
 * mx_plugin_output is allocated with mx_host_api.alloc and freed by the
 * host. No C++ exception or longjmp may cross any function of this header.
 *
 * Thread safety: the host calls `run` of one plugin from one thread at a
 * time unless the plugin declares MX_PLUGIN_FLAG_THREAD_SAFE; host
 * functions that take `host_context` are called from the thread executing
 * `run`.
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
#define MX_PLUGIN_ABI_MINOR 2
#define MX_PLUGIN_ENTRY_SYMBOL "modelexport_plugin_entry"

typedef enum mx_plugin_kind {
  MX_PLUGIN_FRONTEND = 1, /* source model file -> ONNX bytes + hierarchy  */
  MX_PLUGIN_STRATEGY = 2  /* graph (read through the host, or as JSON) -> node -> module assignments */
} mx_plugin_kind;

/* Plugin flags. */
#define MX_PLUGIN_FLAG_THREAD_SAFE 1u /* `run` may be called concurrently */
/* ABI 1.2, strategies: `run` of "assign" reads the graph through
 * mx_host_api.graph and answers through mx_host_api.answer when the host
 * offers them (the request then has no "graph" member). */
#define MX_PLUGIN_FLAG_GRAPH_READER 2u

/* ---- The graph read through the host (plugin ABI 1.2 and later) -------
 * A strategy that declares MX_PLUGIN_FLAG_GRAPH_READER reads the model's
 * graph through these functions (mx_host_api.graph) instead of parsing a
 * JSON text of it, and hands its answers to the host one by one
 * (mx_host_api.answer) instead of writing JSON (docs/plugin-protocol.md,
 * "Graph reader"): on large graphs the JSON text is the larger part of a
 * tagging run's cost.
 *
 * Texts are lent by the host: `size` bytes at `data`, UTF-8 (invalid
 * sequences in the file already replaced by U+FFFD, as in the JSON view),
 * followed by a NUL that is not counted. They stay valid until the `run`
 * during which the reader was obtained returns; copy what you keep.
 * An index out of range answers {NULL, 0}, a count of 0 or a dim of -1:
 * never a crash. Call from the thread executing `run`. */
typedef struct mx_text {
  const char* data;
  size_t size;
} mx_text;

typedef struct mx_graph_reader {
  uint32_t struct_size; /* sizeof(mx_graph_reader) as the host compiled it */
  const void* graph;    /* pass to every function below                   */
  /* Nodes, numbered 0..node_count-1 in the file's (topological) order:
   * the numbers answers use. */
  uint64_t (*node_count)(const void* graph);
  mx_text (*node_name)(const void* graph, uint64_t node); /* may be ""  */
  mx_text (*node_op_type)(const void* graph, uint64_t node);
  mx_text (*node_domain)(const void* graph, uint64_t node); /* "" = ONNX */
  mx_text (*node_doc_string)(const void* graph, uint64_t node);
  /* Value names; "" marks an omitted optional input. */
  uint64_t (*node_input_count)(const void* graph, uint64_t node);
  mx_text (*node_input)(const void* graph, uint64_t node, uint64_t i);
  uint64_t (*node_output_count)(const void* graph, uint64_t node);
  mx_text (*node_output)(const void* graph, uint64_t node, uint64_t i);
  /* The node's metadata_props in file order; a key may repeat, and then
   * the last entry is the one that counts (as in the JSON view). */
  uint64_t (*node_metadata_count)(const void* graph, uint64_t node);
  mx_text (*node_metadata_key)(const void* graph, uint64_t node, uint64_t i);
  mx_text (*node_metadata_value)(const void* graph, uint64_t node, uint64_t i);
  /* Initializers (weights, buffers) in file order, with their shapes
   * (rank 0 = a scalar); weights' bytes are never read for tagging. */
  uint64_t (*initializer_count)(const void* graph);
  mx_text (*initializer_name)(const void* graph, uint64_t i);
  uint64_t (*initializer_rank)(const void* graph, uint64_t i);
  int64_t (*initializer_dim)(const void* graph, uint64_t i, uint64_t d);
  /* The graph's own inputs and outputs. */
  uint64_t (*graph_input_count)(const void* graph);
  mx_text (*graph_input)(const void* graph, uint64_t i);
  uint64_t (*graph_output_count)(const void* graph);
  mx_text (*graph_output)(const void* graph, uint64_t i);
  /* The supplied hierarchy's modules (what a JSON request carries as
   * "modules"; a reader's request has none), in their order, checked by
   * the host; module_count is 0 when the user supplied no hierarchy.
   * module_class is "" and module_own_parameters -1 when not given. */
  uint64_t (*module_count)(const void* graph);
  mx_text (*module_path)(const void* graph, uint64_t i); /* "" = the root */
  mx_text (*module_class)(const void* graph, uint64_t i);
  int64_t (*module_own_parameters)(const void* graph, uint64_t i);
  /* The module's forward outline (docs/hierarchy-schema.md, `forward`):
   * -1 when not known, else its number of steps; step k names a called
   * module's path (*is_call = 1) or an op kind such as "aten::linear"
   * (*is_call = 0). */
  int64_t (*module_forward_count)(const void* graph, uint64_t i);
  mx_text (*module_forward_step)(const void* graph, uint64_t i, uint64_t k, int32_t* is_call);
} mx_graph_reader;

/* Where a strategy's answers go. Each call returns 0, or a non-zero mx_code
 * when the host refuses the answer (node out of range or assigned twice,
 * an invalid module path, unknown evidence): the strategy should then stop
 * and return that code; the host reports the first refusal, naming the
 * plugin, the node and the reason. Strings are copied by the host. */
typedef struct mx_strategy_answer {
  uint32_t struct_size; /* sizeof(mx_strategy_answer) as the host compiled it */
  void* answer;         /* pass to every function below                      */
  /**
   * @brief Places `node` in a module.
   * @param answer               The `answer` member above.
   * @param node                 0 .. node_count - 1 of the graph reader.
   * @param module, module_size  The module's dotted path ("" = the root);
   *                             copied.
   * @param evidence             NUL-terminated: "direct", "scope",
   *                             "metadata" or "parameter"
   *                             (docs/hierarchy-schema.md).
   * @return 0, or the mx_code of the refusal. From the thread of `run`.
   */
  int32_t (*assign)(void* answer, uint64_t node, const char* module, size_t module_size,
                    const char* evidence);
  /**
   * @brief The class of a module the strategy learned ("Conv2d"); the first
   *        class given for a path is kept. Optional for a strategy to call.
   * @param answer                 The `answer` member above.
   * @param path, path_size        The module's dotted path; copied.
   * @param class_name, class_size The class name; copied.
   * @return 0, or the mx_code of the refusal. From the thread of `run`.
   */
  int32_t (*module_class)(void* answer, const char* path, size_t path_size, const char* class_name,
                          size_t class_size);
} mx_strategy_answer;

/* Functions the host offers to a plugin. Buffers a plugin returns in
 * mx_plugin_output MUST be allocated with `alloc`: the host frees them. */
typedef struct mx_host_api {
  uint32_t struct_size; /* sizeof(mx_host_api) as the host compiled it */
  uint32_t abi_major;
  uint32_t abi_minor;
  const char* host_version; /* "0.1.0" */
  /** @brief Allocates `size` bytes for what the plugin returns in
   *  mx_plugin_output (the host frees them).
   *  @return The buffer, or NULL when out of memory. Thread-safe. */
  void* (*alloc)(size_t size);
  /** @brief Frees a buffer from `alloc` the plugin decided not to return.
   *  @param buffer  The buffer, or NULL (nothing to free). Thread-safe. */
  void (*free)(void* buffer);
  /** @brief Logs a message.
   *  @param host_context  The `host_context` member of this table.
   *  @param level         0 debug, 1 info, 2 warning, 3 error.
   *  @param message       NUL-terminated UTF-8; copied.
   *  Thread-safe. */
  void (*log)(void* host_context, int32_t level, const char* message);
  void* host_context;

  /* ---- Plugin ABI 1.1 and later: progress ----------------------------
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
  int32_t (*progress)(void* host_context, const char* stage, const char* unit, uint64_t done, uint64_t total);

  /* ---- Plugin ABI 1.2 and later: the graph read through the host -----
   * For a strategy that declares MX_PLUGIN_FLAG_GRAPH_READER. Inside `run`
   * of an "assign" request, `graph` returns the reader of the model being
   * tagged (and of the supplied modules) and `answer` where the answers go;
   * the request then carries no "graph" and no "modules" member and the
   * host ignores the JSON answer (output->json may
   * stay NULL). Both return NULL when the request carries the graph as
   * JSON (the host was told "graph_reader": false, or the plugin is run by
   * a tool that speaks only JSON): the plugin then answers in JSON, as a
   * 1.0 strategy does. Call them from the thread executing `run`; outside
   * a run they return NULL. */
  const mx_graph_reader* (*graph)(void* host_context);
  const mx_strategy_answer* (*answer)(void* host_context);
} mx_host_api;

/* 1 if the host's table contains `member` (a field appended by a newer
 * minor than the host may have been built with), e.g.
 *   if (MX_HOST_API_HAS(host, progress)) host->progress(...); */
#define MX_HOST_API_HAS(host, member) \
  ((host)->struct_size >= offsetof(mx_host_api, member) + sizeof(((mx_host_api*)0)->member))

/* What a call returns. The plugin fills the fields it produces (allocated
 * with mx_host_api.alloc) and returns a code from mx_code (0 = success).
 * On failure, `error` holds a UTF-8 message naming the problem. */
typedef struct mx_plugin_output {
  char* json;       /* NUL-terminated JSON response            */
  size_t json_size; /* bytes, excluding the NUL                */
  uint8_t* bytes;   /* binary payload (a frontend's ONNX model) */
  size_t bytes_size;
  char* error; /* NUL-terminated message on failure       */
} mx_plugin_output;

typedef struct mx_plugin_descriptor {
  /* Read first, before anything else in this struct. */
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t struct_size;    /* sizeof(mx_plugin_descriptor) as compiled */
  uint32_t kind;           /* mx_plugin_kind */
  uint32_t flags;          /* MX_PLUGIN_FLAG_* */
  const char* name;        /* unique, [a-z0-9_-]+, e.g. "torchscript" */
  const char* version;     /* plugin's own version, e.g. "1.2.0"      */
  const char* description; /* one line                                */

  /**
   * @brief Creates the plugin's state; called once, after the ABI check.
   * @param host        The host's functions; valid until `destroy`.
   * @param[out] state  The plugin's state, handed to `run` and `destroy`.
   * @param[out] error  On failure, `error->error` may carry a message
   *                    (allocated with host->alloc).
   * @return 0, or an mx_code that refuses the plugin (listed with the message).
   */
  int32_t (*create)(const mx_host_api* host, void** state, mx_plugin_output* error);
  /** @brief Releases the state; called once at unload, after every `run`
   *  has returned. May be NULL (nothing to release).
   *  @param state  What `create` made. */
  void (*destroy)(void* state);
  /**
   * @brief Handles one request (docs/plugin-protocol.md).
   * @param state       What `create` made.
   * @param request_json, request_size  The request, lent for the call
   *                    (NUL-terminated; the NUL is not counted).
   * @param[out] output Zeroed by the host; the plugin fills what it answers,
   *                    every buffer allocated with mx_host_api.alloc, and on
   *                    failure `output->error`.
   * @return 0, or an mx_code; MX_ERR_CANCELLED when progress asked to stop.
   *         Called concurrently only with MX_PLUGIN_FLAG_THREAD_SAFE.
   */
  int32_t (*run)(void* state, const char* request_json, size_t request_size, mx_plugin_output* output);

} mx_plugin_descriptor;

typedef const mx_plugin_descriptor* (*mx_plugin_entry_fn)(void);

/* Declare the entry point in a plugin:
 *   MX_PLUGIN_ENTRY { static const mx_plugin_descriptor d = {...}; return &d; } */
#ifdef __cplusplus
#define MX_PLUGIN_EXTERN_C extern "C"
#else
#define MX_PLUGIN_EXTERN_C
#endif
#define MX_PLUGIN_ENTRY \
  MX_PLUGIN_EXTERN_C MX_PLUGIN_EXPORT const mx_plugin_descriptor* modelexport_plugin_entry(void)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODELEXPORT_PLUGIN_H */
