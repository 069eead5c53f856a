/**
 * @file modelexport.h
 * @brief modelexport — public C API (C99).
 *
 * Exports PyTorch models (`torch.export` archives, TorchScript files) to
 * ONNX keeping the module hierarchy on every node, recovers that hierarchy
 * for ONNX files exported elsewhere, and lets tools read and use it.
 *
 * Conventions:
 *  - Every symbol starts with `mx_` / `MX_`.
 *  - Fallible calls return `mx_status*`: NULL means success; otherwise the
 *    caller owns the status and releases it with mx_status_release(). There
 *    is no thread-local "last error".
 *  - Handles are opaque. Every handle type has a release function that
 *    accepts NULL.
 *  - Strings in are NUL-terminated UTF-8 unless a length is given. Buffers
 *    out (`char**`/`void**` + `size_t*`) are allocated by the SDK, always
 *    NUL-terminated for text, and freed with mx_free().
 *  - Options travel as JSON objects (`const char* options_json`, NULL or ""
 *    for defaults). Unknown keys are an error, so typos do not go unnoticed;
 *    new keys are how the ABI grows without breaking old callers.
 *  - No C++ exception ever crosses this boundary.
 *
 * Thread safety:
 *  - mx_status: immutable; may be read from any thread.
 *  - mx_model: no internal locking. Concurrent const calls (functions taking
 *    `const mx_model*`) are safe; any call taking `mx_model*` needs exclusive
 *    access. Different models may be used from different threads freely.
 *  - mx_registry: safe to share between threads once created; loading a
 *    plugin and running plugins are internally synchronised. Plugins declare
 *    their own thread safety; the registry serialises calls into a plugin
 *    that does not declare MX_PLUGIN_FLAG_THREAD_SAFE.
 *
 * The hierarchy JSON schema is documented in docs/hierarchy-schema.md.
 */
#ifndef MODELEXPORT_MODELEXPORT_H
#define MODELEXPORT_MODELEXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "modelexport/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Version                                                             */
/* ------------------------------------------------------------------ */

#define MX_VERSION_MAJOR 0
#define MX_VERSION_MINOR 1
#define MX_VERSION_PATCH 0

/**
 * @brief Version of the library actually loaded (may be newer than this header).
 * @param[out] major, minor, patch  Each may be NULL (not written).
 * Thread-safe.
 */
MX_API void mx_version(uint32_t* major, uint32_t* minor, uint32_t* patch);
/**
 * @brief The loaded library's version as text, "0.1.0".
 * @return Static storage: never free it. Thread-safe.
 */
MX_API const char* mx_version_string(void);

/* ------------------------------------------------------------------ */
/* Status / errors                                                     */
/* ------------------------------------------------------------------ */

typedef enum mx_code {
  MX_OK = 0,
  MX_ERR_INVALID_ARGUMENT = 1, /* NULL handle, malformed option, bad spec   */
  MX_ERR_IO = 2,               /* file missing, unreadable, unwritable     */
  MX_ERR_PARSE = 3,            /* bytes are not a valid ONNX / JSON / .pt  */
  MX_ERR_SCHEMA = 4,           /* JSON parses but does not match schema    */
  MX_ERR_NOT_FOUND = 5,        /* node, module, plugin not found           */
  MX_ERR_UNSUPPORTED = 6,      /* op cannot be lowered, feature missing    */
  MX_ERR_PLUGIN = 7,           /* plugin refused, failed or answered badly */
  MX_ERR_SECURITY = 8,         /* e.g. external data outside model dir     */
  MX_ERR_INTERNAL = 9,         /* a bug in modelexport: please report      */
  MX_ERR_CANCELLED = 10        /* a progress callback asked to stop        */
} mx_code;

typedef struct mx_status mx_status;

/**
 * @brief The code of a status.
 * @param status  A status returned by the SDK, or NULL (success).
 * @return MX_OK for NULL, else the failure's code. Thread-safe.
 */
MX_API mx_code mx_status_code(const mx_status* status);
/**
 * @brief The UTF-8 message of a status: what failed and why, naming the file,
 *        node, module or option concerned.
 * @param status  A status, or NULL.
 * @return Owned by the status and valid until mx_status_release(); "" for
 *         NULL. Thread-safe.
 */
MX_API const char* mx_status_message(const mx_status* status);
/**
 * @brief Frees a status.
 * @param status  A status the SDK returned, or NULL (nothing to free).
 * Needs the status alone: no other thread may read it meanwhile.
 */
MX_API void mx_status_release(mx_status* status);
/**
 * @brief The stable name of a code: "ok", "invalid_argument", "io", ...;
 *        "unknown" for a value outside mx_code.
 * @param code  Any value.
 * @return Static storage: never free it. Thread-safe.
 */
MX_API const char* mx_code_name(mx_code code);

/**
 * @brief Frees a buffer the SDK returned (text, JSON, saved model bytes).
 * @param buffer  The buffer, or NULL (nothing to free). Thread-safe.
 */
MX_API void mx_free(void* buffer);

/* ------------------------------------------------------------------ */
/* Progress                                                            */
/* ------------------------------------------------------------------ */

/* One report of a long call. `stage` names the step, `unit` what `done` and
 * `total` count; `total` is 0 when the amount is unknown (show a spinner,
 * not a bar). Stages and units (stable strings; more may be added):
 *   stage        unit         reported by
 *   "export"     ""           mx_registry_export*: the frontend starts
 *   "walk"       "ops"        the TorchScript frontend: ops lowered / ops
 *                             in the graph (an If counts its larger branch)
 *   "lower"      "nodes"      the torch.export frontend: program nodes
 *                             lowered / nodes
 *   "load"       ""           the host reads the frontend's answer
 *   "tag"        "strategies" mx_registry_tag*: strategies run / to run
 *   "propagate"  ""           records spread to auxiliary nodes
 *   "functions"  "modules"    mx_model_to_functions*: modules converted /
 *                             selected
 *   "check"      ""           mx_model_save_file*: the ONNX checker
 *   "write"      "bytes"      the model file written, or with external
 *                             data the data file (the weights)
 *   "commit"     ""           files synced to disk and renamed in place
 * Strings are valid only during the callback. The first report of a stage
 * always arrives, and so does its last (done == total) when total is known;
 * in between, reports are throttled to `min_interval_ms`. */
typedef struct mx_progress_event {
  uint32_t struct_size; /* sizeof(mx_progress_event) as the SDK built it */
  const char* stage;
  const char* unit;
  uint64_t done;
  uint64_t total;
} mx_progress_event;

/* Called on the thread that made the SDK call, while the call runs. Return
 * 0 to go on, non-zero to cancel: the call then fails with
 * MX_ERR_CANCELLED as soon as it can, leaving no output file behind and the
 * model unchanged. The callback must not call back into the SDK with the
 * same model, and must not throw or longjmp across the SDK. */
typedef int32_t (*mx_progress_fn)(const mx_progress_event* event, void* user_data);

/* How a caller listens. Zero-initialise, then set struct_size =
 * sizeof(mx_progress) (newer SDKs may read fields appended later only when
 * struct_size covers them). A NULL mx_progress* or callback means nobody
 * listens: the calls below then behave exactly as their plain versions. */
typedef struct mx_progress {
  uint32_t struct_size;
  mx_progress_fn callback;
  void* user_data;
  uint32_t min_interval_ms; /* between throttled reports; 0 -> 100 */
} mx_progress;

/* ------------------------------------------------------------------ */
/* Models                                                              */
/* ------------------------------------------------------------------ */

/* An ONNX model in memory plus its hierarchy (module tree and per-node
 * records). Not locked internally: calls taking `const mx_model*` may run
 * concurrently on one model; a call taking `mx_model*` needs it alone. */
typedef struct mx_model mx_model;

/**
 * @brief Loads an ONNX file with any hierarchy it carries: node
 *        metadata_props, doc_string records, model metadata and the sidecar
 *        `<model>.hierarchy.json` next to it.
 * @param path      The ONNX file (UTF-8). External data must stay inside
 *                  its directory (see mx_model_save_file()).
 * @param[out] out  The model; free with mx_model_release(). Set to NULL
 *                  first, so it is NULL on failure.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT (NULL argument), MX_ERR_IO,
 *         MX_ERR_PARSE (not ONNX), MX_ERR_SCHEMA (a hierarchy that does not
 *         match the schema), MX_ERR_SECURITY (external data outside the
 *         model's directory). Thread-safe.
 */
MX_API mx_status* mx_model_load_file(const char* path, mx_model** out);
/**
 * @brief Loads an ONNX model from memory, as mx_model_load_file() without
 *        a sidecar. The bytes are copied; `data` may be freed afterwards.
 * @param data, size  The serialized ModelProto (`data` may be NULL when
 *                    `size` is 0).
 * @param[out] out    The model; free with mx_model_release(); NULL on failure.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT, MX_ERR_PARSE, MX_ERR_SCHEMA,
 *         MX_ERR_UNSUPPORTED (the model refers to external data).
 *         Thread-safe.
 */
MX_API mx_status* mx_model_load_bytes(const void* data, size_t size, mx_model** out);
/**
 * @brief Frees a model.
 * @param model  The model, or NULL (nothing to free). Needs the model alone.
 */
MX_API void mx_model_release(mx_model* model);

/**
 * @brief Writes the model, its records and (by default) its sidecar.
 *
 * Options (JSON object, NULL or "" for defaults; all optional):
 *   "tag_storage": "metadata" (default) | "doc_string" | "none"
 *   "sidecar":     true (default for files) | false  -> <path without .onnx>.hierarchy.json
 *                     (out.onnx -> out.hierarchy.json)
 *   "check":       true (default) | false  -> run the libonnx checker first
 *   "external_data": true | false | absent (files only; true with
 *                  mx_model_save_bytes is MX_ERR_INVALID_ARGUMENT)
 *                  -> tensor bytes of 1 KiB or more go to `<path>.data`
 *                  next to the model (ONNX external data, location relative
 *                  to the model). Absent = automatic: external when the
 *                  model was loaded with external data or would exceed
 *                  protobuf's 2 GB limit; false inlines everything.
 *   "external_data_over": N (bytes, > 0; files only) -> automatic also
 *                  writes external data when the model is larger than N
 *                  (the CLI's export passes 1 MiB: ONNX Runtime creates a
 *                  session faster for external weights than inline ones).
 * External data read at load time (mx_model_load_file) must stay inside the
 * model's directory: absolute locations, '..' and symlinks leading out are
 * MX_ERR_SECURITY; data files are opened once at load and read from then
 * on, so saving over them (tagging in place) is safe. Models loaded from
 * bytes cannot reference external data (MX_ERR_UNSUPPORTED).
 * Files are written to a temporary name in the same directory and renamed,
 * so a failed save never leaves a partial file.
 *
 * @param model         The model (not changed).
 * @param path          The ONNX file to write (UTF-8).
 * @param options_json  The options above, or NULL.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT (NULL argument, unknown or
 *         malformed option, over 2 GB without external data), MX_ERR_IO,
 *         MX_ERR_SCHEMA (the checker refuses the model). Concurrent saves
 *         of one model are safe (const call).
 */
MX_API mx_status* mx_model_save_file(const mx_model* model, const char* path, const char* options_json);
/**
 * @brief mx_model_save_file() reporting the stages "check", "write" and
 *        "commit" to `progress`.
 * @param model, path, options_json  As mx_model_save_file().
 * @param progress  The listener, or NULL (nobody listens); read during the
 *                  call only.
 * @return The errors of mx_model_save_file(), or MX_ERR_CANCELLED (nothing
 *         was written). Const call, as mx_model_save_file().
 */
MX_API mx_status* mx_model_save_file_with_progress(const mx_model* model, const char* path,
                                                   const char* options_json, const mx_progress* progress);
/**
 * @brief Serializes the model with its records into memory (no sidecar;
 *        external data is inlined).
 * @param model  The model (not changed).
 * @param options_json   As mx_model_save_file() ("external_data": true is
 *                       MX_ERR_INVALID_ARGUMENT), or NULL.
 * @param[out] out       The bytes; free with mx_free(). NULL on failure.
 * @param[out] out_size  Their size; 0 on failure.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT, MX_ERR_SCHEMA (checker).
 *         Const call: concurrent calls on one model are safe.
 */
MX_API mx_status* mx_model_save_bytes(const mx_model* model, const char* options_json, void** out,
                                      size_t* out_size);

/**
 * @brief The graph as JSON, without tensor data:
 * {"ir_version":8,"opset_import":{"":17},"producer_name":...,
 *  "metadata":{k:v},"inputs":[{"name","dtype","shape"}],"outputs":[...],
 *  "initializers":[{"name","dtype","shape"}],
 *  "nodes":[{"name","op_type","domain","inputs":[],"outputs":[]}]}
 * @param model  The model.
 * @param[out] out_json  NUL-terminated UTF-8; free with mx_free(). Written
 *                       only on success.
 * @param[out] out_size  Its length without the NUL; may be NULL.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT (NULL model or out_json).
 *         Const call.
 */
MX_API mx_status* mx_model_graph_json(const mx_model* model, char** out_json, size_t* out_size);
/**
 * @brief Number of top-level nodes of the graph.
 * @param model  The model, or NULL (0). Const call.
 */
MX_API size_t mx_model_node_count(const mx_model* model);
/**
 * @brief One top-level node of the graph view by position:
 *        {"name","op_type","domain","inputs":[],"outputs":[]}.
 * @param model  The model.
 * @param index          0 .. mx_model_node_count() - 1.
 * @param[out] out_json  Free with mx_free(); written only on success.
 * @param[out] out_size  May be NULL.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT (NULL argument),
 *         MX_ERR_NOT_FOUND (index out of range). Const call.
 */
MX_API mx_status* mx_model_node_json(const mx_model* model, size_t index, char** out_json, size_t* out_size);

/**
 * @brief Runs the ONNX checker (full check, with shape inference).
 * @param model  The model (not changed).
 * @return NULL when the model passes, MX_ERR_SCHEMA with the checker's
 *         message when it does not, MX_ERR_INVALID_ARGUMENT for NULL.
 *         Const call.
 */
MX_API mx_status* mx_model_check(const mx_model* model);

/* ------------------------------------------------------------------ */
/* Hierarchy                                                           */
/* ------------------------------------------------------------------ */

/**
 * @brief A node's record: {"module":"encoder.layer.0","tag":"/BertModel/...",
 *        "evidence":"direct"} (docs/hierarchy-schema.md).
 * @param model  The model.
 * @param node_name      The node's name (NUL-terminated UTF-8).
 * @param[out] out_json  Free with mx_free(); written only on success.
 * @param[out] out_size  May be NULL.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT (NULL argument),
 *         MX_ERR_NOT_FOUND (no such node, or the node has no record).
 *         Const call.
 */
MX_API mx_status* mx_model_node_record(const mx_model* model, const char* node_name, char** out_json,
                                       size_t* out_size);
/**
 * @brief Sets one node's record.
 * @param model        The model; changed only on success.
 * @param record_size  The length of `record_json` in bytes.
 * @param node_name    The node's name.
 * @param record_json  {"module","tag","evidence"} (a "name", if present,
 *                     must equal node_name); `record_size` bytes, not
 *                     necessarily NUL-terminated. Copied.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT, MX_ERR_PARSE (not JSON),
 *         MX_ERR_SCHEMA (not a record), MX_ERR_NOT_FOUND (no such node).
 *         On error the model is unchanged. Needs the model alone.
 */
MX_API mx_status* mx_model_set_node_record(mx_model* model, const char* node_name, const char* record_json,
                                           size_t record_size);

/**
 * @brief The whole hierarchy document ("schema":"modelexport.hierarchy/1"):
 *        module tree, per-node records and statistics, as the sidecar holds it.
 * @param model  The model.
 * @param[out] out_json  Free with mx_free(); written only on success.
 * @param[out] out_size  May be NULL.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT (NULL argument). Const call.
 */
MX_API mx_status* mx_model_hierarchy_json(const mx_model* model, char** out_json, size_t* out_size);
/**
 * @brief Replaces the model's hierarchy with a document.
 * @param model  The model; changed only on success.
 * @param json, size  The document (`size` bytes, copied).
 * @return NULL, or MX_ERR_INVALID_ARGUMENT, MX_ERR_PARSE (not JSON),
 *         MX_ERR_SCHEMA (does not match the schema, or names nodes or
 *         modules the model does not have). On error the model is
 *         unchanged. Needs the model alone.
 */
MX_API mx_status* mx_model_set_hierarchy_json(mx_model* model, const char* json, size_t size);
/**
 * @brief Whether the model carries a module tree or any node record.
 * @param model  The model, or NULL.
 * @return 1 if it does, else 0 (also for NULL). Const call.
 */
MX_API int mx_model_has_hierarchy(const mx_model* model);

/* ------------------------------------------------------------------ */
/* Plugin registry                                                     */
/* ------------------------------------------------------------------ */

/* The plugins: frontends (export) and tagging strategies. Safe to share
 * between threads once created. */
typedef struct mx_registry mx_registry;

/**
 * @brief Creates a registry and discovers plugins.
 *
 * Options (JSON, NULL or "" for defaults; all optional):
 *   "discover": true (default) -> scan the install's plugin directory and
 *               every directory of MODELEXPORT_PLUGIN_PATH (':'-separated)
 *   "plugin_dirs": ["dir", ...] -> extra directories, scanned after those
 *   "graph_reader": true (default) -> strategies that can (plugin ABI 1.2,
 *               MX_PLUGIN_FLAG_GRAPH_READER) read the graph through the
 *               host; false sends every strategy the graph as JSON text
 *               (the 1.0 protocol): for plugin authors comparing both
 *               paths, and for benchmarks. Results are the same.
 * Plugins that are refused do not make creation fail: they are listed with
 * their reason by mx_registry_plugins_json().
 *
 * @param options_json  The options above, or NULL for the defaults.
 * @param[out] out  The registry; free with mx_registry_release(). NULL on
 *                  failure.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT (unknown or malformed option).
 *         Thread-safe.
 */
MX_API mx_status* mx_registry_create(const char* options_json, mx_registry** out);
/**
 * @brief Frees a registry and unloads its plugins.
 * @param registry  The registry, or NULL (nothing to free). No other call
 *                  may use the registry, nor a model it is still exporting
 *                  or tagging, at the same time.
 */
MX_API void mx_registry_release(mx_registry* registry);

/**
 * @brief Loads one plugin library by path.
 * @param registry  The registry that keeps the plugin until it is released.
 * @param path      The shared library (UTF-8).
 * @return NULL, or MX_ERR_INVALID_ARGUMENT (NULL argument), MX_ERR_PLUGIN
 *         (refused: incompatible ABI, no entry point, duplicate name; the
 *         reason is in the message and in mx_registry_plugins_json()).
 *         Thread-safe (synchronised with running plugins).
 */
MX_API mx_status* mx_registry_load_plugin(mx_registry* registry, const char* path);

/**
 * @brief The loaded and refused plugins as JSON:
 * {"plugin_dirs":[...],"plugins":[{"name","kind","version","description",
 *   "path","abi":"1.2","thread_safe","graph_reader","status":"loaded"}, {"path","status":"refused",
 *   "reason":"..."}]}; a lowering plugin (modelexport/lowering_plugin.h) is listed as
 *   {"name","kind":"lowering","version","description","path","abi":"1.0","ops":N,"status":"loaded"}
 * @param registry  The registry.
 * @param[out] out_json  Free with mx_free(); written only on success.
 * @param[out] out_size  May be NULL.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT. Thread-safe.
 */
MX_API mx_status* mx_registry_plugins_json(const mx_registry* registry, char** out_json, size_t* out_size);

/**
 * @brief Tags a model: runs a strategy plugin, then the core's propagation
 *        to the nodes without evidence; the model's hierarchy is replaced.
 * @param registry      The registry whose strategies run.
 * @param options_json  The options below, or NULL.
 * @param strategy  A strategy's name, or NULL / "auto" (each strategy in
 *                  turn; docs/tagging.md).
 * @param model     The model to tag.
 * Options (JSON, NULL for defaults):
 *   "hierarchy": <hierarchy document or path string> to supply the module
 *                tree and class names (`modelexport hierarchy` writes one)
 *   "strategy_options": {...} passed through to the plugin
 * @return NULL, or MX_ERR_INVALID_ARGUMENT, MX_ERR_NOT_FOUND (no such
 *         strategy), MX_ERR_SCHEMA (a supplied hierarchy that does not
 *         match the schema), MX_ERR_PLUGIN (the plugin failed or answered
 *         badly). On error the model is unchanged. Needs the model alone;
 *         the registry may be shared.
 */
MX_API mx_status* mx_registry_tag(const mx_registry* registry, const char* strategy, mx_model* model,
                                  const char* options_json);
/**
 * @brief mx_registry_tag() reporting "tag" and "propagate" to `progress`.
 * @param registry, strategy, model, options_json  As mx_registry_tag().
 * @param progress  The listener, or NULL (nobody listens); read during the
 *                  call only.
 * @return The errors of mx_registry_tag(), or MX_ERR_CANCELLED (the model
 *         is unchanged). Needs the model alone; the registry may be shared.
 */
MX_API mx_status* mx_registry_tag_with_progress(const mx_registry* registry, const char* strategy,
                                                mx_model* model, const char* options_json,
                                                const mx_progress* progress);

/**
 * @brief Exports a model file to an ONNX model with its hierarchy.
 *
 * Through a frontend plugin: "torch_export" (.pt2
 * archives from torch.export.save), "torchscript" (.pt), or NULL / "auto"
 * to let the file's content choose (each frontend is asked whether it
 * reads the file).
 * Options (JSON):
 *   "inputs": ["input_ids:int64[batch=2,seq=16]", ...]
 *             (required for TorchScript; optional for .pt2, whose program
 *             knows its inputs: a spec overrides the sizes and names dims)
 *   "opset": 20 (14..28: 14 to the newest opset of the ONNX library the
 *             SDK is built with; the IR version follows the opset)
 *   "fused_ops": true  -> Gelu (opset 20+), GroupNormalization (21+),
 *             Attention and RMSNormalization (23+) where the opset has
 *             them; false keeps their decompositions
 *   "fold_batch_norms": true  -> an eval BatchNormalization after a Conv
 *             is folded into the Conv's weight and bias (.pt2 frontend;
 *             the sidecar's graph_passes.folded_batch_norms says so);
 *             false keeps the node and the parameters as they are
 *   "upcast_bf16": false -> true: every op computing on bf16 values does
 *             it in float32 between Casts (inputs, outputs and weights stay
 *             bf16), for runtimes without bf16 kernels; .pt2 frontend only
 *   "state_outputs": true -> state the program writes (buffers such as a
 *             KV cache, parameters, constants, user inputs) is a graph
 *             input keeping its initializer, with its value after the call
 *             as output "<name>.updated"; false keeps it an initializer
 *             and drops the updates (the sidecar's "state" says so, and a
 *             warning is logged); .pt2 frontend only
 *   "drop_builtin_tags": false  -> omit torch.nn built-ins from tags
 *   "external_data": true | false | absent
 *                  -> true: the frontend streams every weight of 1 KiB or
 *                  more to a data file instead of handing the model over as
 *                  bytes; absent (automatic): only when the model would
 *                  exceed protobuf's 2 GB limit; false: never (a model over
 *                  the limit is then MX_ERR_INVALID_ARGUMENT). The data goes
 *                  to a private directory under $TMPDIR (default /tmp; it
 *                  needs room for the weights), which is removed before this
 *                  call returns: the model keeps the data file open and
 *                  reads weights from it lazily, so memory holds no copy of
 *                  them. mx_model_save_file() then streams them to
 *                  `<path>.data` (its automatic choice for a model with
 *                  external data); mx_model_save_bytes() inlines them.
 *
 * @param registry      The registry whose frontends read the file.
 * @param options_json  The options above, or NULL.
 * @param frontend    A frontend's name, or NULL / "auto".
 * @param model_path  The model file (UTF-8).
 * @param[out] out    The exported model with its hierarchy, in memory;
 *                    save it with mx_model_save_file(), free it with
 *                    mx_model_release(). NULL on failure.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT (option, input spec, opset),
 *         MX_ERR_IO, MX_ERR_PARSE (a file the frontend cannot read),
 *         MX_ERR_NOT_FOUND (no frontend of that name), MX_ERR_UNSUPPORTED
 *         (no frontend reads the file, or an op the frontend cannot lower;
 *         the message names it), MX_ERR_PLUGIN, MX_ERR_CANCELLED. Thread-safe: the registry
 *         serialises calls into a plugin that is not thread-safe.
 */
MX_API mx_status* mx_registry_export(const mx_registry* registry, const char* frontend,
                                     const char* model_path, const char* options_json, mx_model** out);
/**
 * @brief mx_registry_export() reporting "export", the frontend's own stages
 *        ("walk", "lower"; frontends of plugin ABI 1.1 and later) and "load"
 *        to `progress`.
 * @param registry, frontend, model_path, options_json  As mx_registry_export().
 * @param progress  The listener, or NULL (nobody listens); read during the
 *                  call only.
 * @param[out] out  The model; free with mx_model_release(). NULL on failure.
 * @return The errors of mx_registry_export() (MX_ERR_CANCELLED when the
 *         listener stopped it). Thread-safe, as mx_registry_export().
 */
MX_API mx_status* mx_registry_export_with_progress(const mx_registry* registry, const char* frontend,
                                                   const char* model_path, const char* options_json,
                                                   const mx_progress* progress, mx_model** out);

/**
 * @brief The module tree of a source model (.pt2, TorchScript) as a
 *        hierarchy document without node records, for mx_registry_tag()'s
 *        "hierarchy" option.
 * @param registry       The registry whose frontends read the file.
 * @param frontend       A frontend's name, or NULL / "auto".
 * @param model_path     The model file (UTF-8).
 * @param[out] out_json  Free with mx_free(); written only on success.
 * @param[out] out_size  May be NULL.
 * @return NULL, or the errors of mx_registry_export(). Thread-safe.
 */
MX_API mx_status* mx_registry_module_tree(const mx_registry* registry, const char* frontend,
                                          const char* model_path, char** out_json, size_t* out_size);

/* ------------------------------------------------------------------ */
/* Modules as functions, extraction, inspection, validation            */
/* ------------------------------------------------------------------ */

/**
 * @brief Rewrites the model so that module instances become calls to ONNX local
 * functions (domain "modelexport.fn"), nested as the module tree nests.
 * Structurally identical instances share one FunctionProto, their weights
 * passed as inputs (docs/functions.md). Nodes inside functions keep records
 * whose module/tag are relative to the calling module; call nodes carry the
 * instance's record. The model needs a module tree (MX_ERR_UNSUPPORTED
 * otherwise, or when it already has modelexport functions); on error the
 * model is unchanged. Options (JSON, all optional):
 *   "classes": ["BertLayer", ...]  -> modules of these classes (class or
 *                                     qualified class); MX_ERR_NOT_FOUND if
 *                                     a class matches no module
 *   "modules": ["encoder.layer.0", ...] -> these module paths
 *   "min_nodes": 2          -> default selection: at least this many nodes
 *   "include_builtin": false -> default selection: torch.nn.* modules too
 * Default selection (no classes/modules): executed modules other than the
 * root and torch.nn built-ins with at least min_nodes nodes. A module whose
 * nodes do not form a convex subgraph, or that holds control flow, is
 * skipped and listed.
 * @param model         The model, rewritten in place.
 * @param options_json  The options above, or NULL.
 * @param[out] out_report_json  May be NULL; else receives
 *              {"functions":N,"calls":M,"top_level_nodes":K,"definitions":[{"name",
 *              "domain","class","structure","body_nodes","instances":[...]}],
 *              "skipped":[{"module","reason"}],"record_mismatches":R}; free it
 *              with mx_free(). Written only on success.
 * @param[out] out_size  Its length; may be NULL.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT, MX_ERR_NOT_FOUND,
 *         MX_ERR_UNSUPPORTED as above. Needs the model alone.
 */
MX_API mx_status* mx_model_to_functions(mx_model* model, const char* options_json, char** out_report_json,
                                        size_t* out_size);
/**
 * @brief mx_model_to_functions() reporting "functions" to `progress`.
 * @param model, options_json  As mx_model_to_functions().
 * @param progress  The listener, or NULL (nobody listens); read during the
 *                  call only.
 * @param[out] out_report_json, out_size  As mx_model_to_functions(); free
 *              the report with mx_free().
 * @return The errors of mx_model_to_functions(), or MX_ERR_CANCELLED (the
 *         model is unchanged). Needs the model alone.
 */
MX_API mx_status* mx_model_to_functions_with_progress(mx_model* model, const char* options_json,
                                                      const mx_progress* progress, char** out_report_json,
                                                      size_t* out_size);

/**
 * @brief The nodes of one module and its descendants as a new standalone model:
 * boundary tensors become graph inputs/outputs typed from value_info (ONNX
 * shape inference runs when types are missing), used weights become
 * initializers, records and the module tree are kept. Works on flat models
 * (MX_ERR_UNSUPPORTED with modelexport functions). An unknown path is
 * MX_ERR_NOT_FOUND whose message lists the closest paths. Options (JSON):
 *   "include_constants": true -> copy input-less Constant nodes feeding the
 *                               module, instead of making them inputs
 * @param model         The source model (not changed).
 * @param options_json  The options above, or NULL.
 * @param module_path  The module ("encoder.layer.0"; "" = the root).
 * @param[out] out     The new model; free with mx_model_release(). NULL on
 *                     failure.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT, MX_ERR_NOT_FOUND,
 *         MX_ERR_UNSUPPORTED. Const call: the source model is not changed.
 */
MX_API mx_status* mx_model_extract(const mx_model* model, const char* module_path, const char* options_json,
                                   mx_model** out);

/**
 * @brief Per-module statistics as JSON: {"nodes":N,"top_level_nodes":K,
 *  "functions":[{"name","domain","body_nodes","instances":[...]}],
 *  "modules":[{"path","class","tag","depth","own_nodes","total_nodes",
 *   "own_parameters","parameters","ops":{op:n},"ops_total":{op:n},
 *   "function":name|null}]}. Calls to local functions are expanded, so node
 * counts are those of the flat model. `options_json`: NULL, "{}", or
 * {"statistics": true} to add "statistics", the hierarchy document's
 * object of that name (without asking for the whole document);
 * {"rows": false} answers the counts alone, without a row per module:
 * {"top_level_nodes":K,"module_count":M} (plus "statistics" if asked).
 * @param model         The model.
 * @param options_json  As above, or NULL.
 * @param[out] out_json  Free with mx_free(); written only on success.
 * @param[out] out_size  May be NULL.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT (NULL argument, unknown
 *         option). Const call.
 */
MX_API mx_status* mx_model_modules_json(const mx_model* model, const char* options_json, char** out_json,
                                        size_t* out_size);

/**
 * @brief Draws the top-level graph with nodes nested in their modules.
 * @param model  The model.
 * @param format         "dot" (Graphviz clusters) or "graphml" (nested
 *                       graphs; yEd, Gephi).
 * @param options_json   NULL or "{}".
 * @param[out] out_text  Free with mx_free(); written only on success.
 * @param[out] out_size  May be NULL.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT (unknown format or option).
 *         Const call.
 */
MX_API mx_status* mx_model_render(const mx_model* model, const char* format, const char* options_json,
                                  char** out_text, size_t* out_size);

/**
 * @brief Validates a file: every node (top level and inside modelexport
 * functions) carries a record, records name modules of the tree with
 * consistent tags, the file's records and module tree agree with the
 * sidecar, and the ONNX checker passes. Inconsistencies are reported, not
 * returned as errors: the call fails only when the file cannot be read or
 * parsed. Report: {"file","ok":bool,"checked":{"nodes","function_nodes",
 * "modules","sidecar","checker"},"issues":[{"kind","message",...}]}.
 * `options_json` must be NULL or "{}".
 * @param path          The ONNX file (UTF-8); its sidecar is read if there is one.
 * @param options_json  NULL or "{}".
 * @param[out] out_report_json  Free with mx_free(); written only on success.
 * @param[out] out_size         May be NULL.
 * @return NULL (whatever the report says), or MX_ERR_INVALID_ARGUMENT,
 *         MX_ERR_IO, MX_ERR_PARSE. Thread-safe.
 */
MX_API mx_status* mx_validate_file(const char* path, const char* options_json, char** out_report_json,
                                   size_t* out_size);

/**
 * @brief Writes `size` bytes to `path` the way the SDK writes its own outputs:
 * under an unpredictable temporary name created with O_EXCL in the same
 * directory, fsync'ed, then renamed over `path`. A symlink at `path` is
 * replaced, never written through; a directory, FIFO or device there is
 * refused (MX_ERR_IO); the temporary is removed on failure and on
 * SIGINT/SIGTERM/SIGHUP (when the application has no handler of its own).
 * For tools that save renders or reports next to models (the CLI's
 * `inspect -o`, `hierarchy -o`). `options_json` must be NULL or "{}".
 * @param path          The file to write (UTF-8).
 * @param options_json  NULL or "{}".
 * @param data, size  The bytes (`data` may be NULL when `size` is 0).
 * @return NULL, or MX_ERR_INVALID_ARGUMENT, MX_ERR_IO. Thread-safe (two
 *         calls on one path: the last rename wins).
 */
MX_API mx_status* mx_write_file(const char* path, const void* data, size_t size, const char* options_json);

/**
 * @brief Per-module differences between two tagged models (for example a native
 * export against torch.onnx.export of the same model, or a file before and
 * after an optimizer), over the union of both module trees, from the
 * statistics of mx_model_modules_json. Report: {"a":{"name","nodes",
 * "modules"},"b":{...},"summary":{"modules","equal","different",
 * "only_in_a","only_in_b","equal_with_descendant_differences","identical"},
 * "modules":[{"path","class","status":"equal"|"different"|"only_in_a"|
 *  "only_in_b", for modules in both: "own_nodes","total_nodes",
 *  "own_parameters","parameters" as {"a","b","delta"}, "ops_added" and
 *  "ops_removed" ({op:count}, own nodes), "descendants_differ":bool}]}.
 * "different" means the module's own nodes, ops, parameters or class differ.
 * Differences are data, not errors; a model without node records is
 * MX_ERR_UNSUPPORTED. Options (JSON): "a_name", "b_name" -> labels used in
 * messages and the report (default "model A" / "model B").
 * @param a             The first model (not changed).
 * @param b             The second model (not changed).
 * @param options_json  The options above, or NULL.
 * @param[out] out_json  Free with mx_free(); written only on success.
 * @param[out] out_size  May be NULL.
 * @return NULL, or MX_ERR_INVALID_ARGUMENT, MX_ERR_UNSUPPORTED. Const call
 *         on both models.
 */
MX_API mx_status* mx_model_compare(const mx_model* a, const mx_model* b, const char* options_json,
                                   char** out_json, size_t* out_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODELEXPORT_MODELEXPORT_H */
