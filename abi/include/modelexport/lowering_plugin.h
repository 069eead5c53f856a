/**
 * @file lowering_plugin.h
 * @brief modelexport — lowering plugin API (C99): the ONNX lowering of ops
 *        from other libraries (a user's torch.library.custom_op).
 *
 * A lowering plugin is a shared library that exports one C function,
 *
 *     const mx_lowering_descriptor* modelexport_lowering_entry(void);
 *
 * (name in MX_LOWERING_ENTRY_SYMBOL; declare it with MX_LOWERING_ENTRY). It
 * is found where every plugin is found (the install's plugin directory, then
 * MODELEXPORT_PLUGIN_PATH, then directories given to the registry): the
 * registry lists it (`modelexport plugins`, kind "lowering") and names it to
 * the frontend in each export request (.pt2 and TorchScript alike), which
 * opens it, checks the descriptor and lowers every program node whose
 * target the descriptor lists through the op's callback. A plugin never links libmodelexport:
 * everything it reads and emits goes through the mx_lowering_api table the
 * host hands to each callback. docs/lowering-plugins.md is the guide.
 *
 * Compatibility: the host reads `abi_major`, `abi_minor` and `struct_size`
 * first and accepts a descriptor whose abi_major equals MX_LOWERING_ABI_MAJOR
 * and whose abi_minor is <= the host's. The ABI grows append-only: newer
 * minors append fields at the end of the structs below (never reorder,
 * retype or remove one); `struct_size` (descriptor, host table) and
 * `op_size` (the ops array's element size) tell which fields exist. A plugin
 * checks a host function with MX_LOWERING_API_HAS before calling it.
 *
 * Ownership and lifetimes:
 *  - The descriptor, its strings and its ops array belong to the plugin and
 *    must stay valid while the library is loaded (static data).
 *  - Texts and arrays the host returns (value names, symbols, int lists) are
 *    lent: valid until the callback returns. Copy what you keep.
 *  - Texts and arrays the plugin passes (op types, input names, attribute
 *    values, constant bytes, messages) are copied by the host during the
 *    call: the plugin may free or reuse them as soon as the call returns.
 *
 * Errors: every host function that can fail returns an mx_code (0 = success;
 * the codes of modelexport.h: MX_ERR_NOT_FOUND for an absent argument or an
 * out-of-range index, MX_ERR_INVALID_ARGUMENT for a wrong kind or a NULL,
 * MX_ERR_UNSUPPORTED for what this host cannot do) and records a message in
 * the context; a callback returns 0, or a non-zero code — the one a host
 * function gave it, or its own after `fail` recorded a message. The host
 * then fails the export naming the plugin, the node, its op and module and
 * the last message. Nothing else crosses the ABI: no C++ exception, no
 * longjmp, no process exit.
 *
 * Thread safety: a callback is called from the thread running the export,
 * one node at a time per export; exports of different programs may run
 * concurrently, each with its own contexts, so a callback keeps no mutable
 * global state (or locks it). Host functions are called only from inside
 * the callback, with its context.
 */
#ifndef MODELEXPORT_LOWERING_PLUGIN_H
#define MODELEXPORT_LOWERING_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "modelexport/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MX_LOWERING_ABI_MAJOR 1
#define MX_LOWERING_ABI_MINOR 1
#define MX_LOWERING_ENTRY_SYMBOL "modelexport_lowering_entry"

/** One node being lowered (opaque; valid during its callback only). */
typedef struct mx_lowering_context mx_lowering_context;

/** Kinds of an ONNX attribute the plugin sets on an emitted node. */
typedef enum mx_lowering_attribute_type {
  MX_LOWERING_ATTR_INT = 1,    /* `i`                                  */
  MX_LOWERING_ATTR_FLOAT = 2,  /* `f` (ONNX stores float32)            */
  MX_LOWERING_ATTR_STRING = 3, /* `s`, NUL-terminated                  */
  MX_LOWERING_ATTR_INTS = 4,   /* `ints`, `count` elements             */
  MX_LOWERING_ATTR_FLOATS = 5  /* `floats`, `count` elements (float32) */
} mx_lowering_attribute_type;

typedef struct mx_lowering_attribute {
  const char* name; /* NUL-terminated ONNX attribute name */
  int32_t type;     /* mx_lowering_attribute_type */
  int64_t i;
  double f;
  const char* s;
  const int64_t* ints;
  const double* floats;
  size_t count;
} mx_lowering_attribute;

/** The host's functions, handed to every callback. `cx` is the callback's
 *  context. Arguments are named as the op's schema names them
 *  (`torch.ops.mylib.scaled_add.default._schema`); an argument equal to its
 *  schema default is absent from the program, so the plugin supplies the
 *  default when has_arg answers 0. */
typedef struct mx_lowering_api {
  uint32_t struct_size; /* sizeof(mx_lowering_api) as the host compiled it */
  uint32_t abi_major;
  uint32_t abi_minor;
  const char* host_version; /* "0.1.0" */

  /* ---- the node (texts lent until the callback returns) */
  /** The program's target without "torch.ops.": "mylib.scaled_add.default". */
  const char* (*target)(mx_lowering_context* cx);
  /** The program's node name ("scaled_add"), for messages. */
  const char* (*node_name)(mx_lowering_context* cx);
  /** The module the node ran in ("block"; "" = the root). */
  const char* (*module)(mx_lowering_context* cx);
  /** The default-domain ONNX opset of the export (write nodes in its form). */
  int64_t (*opset)(mx_lowering_context* cx);

  /* ---- arguments by schema name */
  /** 1 when the argument is present and not None, else 0. */
  int32_t (*has_arg)(mx_lowering_context* cx, const char* name);
  /** The ONNX value name of a tensor argument (lent). */
  int32_t (*tensor)(mx_lowering_context* cx, const char* name, const char** onnx_name);
  /** Its element type, an ONNX TensorProto.DataType (1 = FLOAT, 7 = INT64, ...). */
  int32_t (*tensor_dtype)(mx_lowering_context* cx, const char* name, int32_t* dtype);
  int32_t (*tensor_rank)(mx_lowering_context* cx, const char* name, int64_t* rank);
  /** Dim `axis` (0-based): a static one sets *size >= 0 and *symbol NULL; a
   *  dynamic one *size = -1 and *symbol its expression in the program's
   *  symbols ("s0", lent). MX_ERR_NOT_FOUND when axis >= rank. */
  int32_t (*tensor_dim)(mx_lowering_context* cx, const char* name, int64_t axis, int64_t* size,
                        const char** symbol);
  /** A static int (or SymInt the program knows statically, or bool). A
   *  dynamic SymInt answers MX_ERR_UNSUPPORTED. */
  int32_t (*int_arg)(mx_lowering_context* cx, const char* name, int64_t* value);
  /** A float (an int or bool argument converts). */
  int32_t (*float_arg)(mx_lowering_context* cx, const char* name, double* value);
  /** A bool, 0 or 1 (an int argument converts: non-zero is 1). */
  int32_t (*bool_arg)(mx_lowering_context* cx, const char* name, int32_t* value);
  /** A list of static ints (lent, `*count` elements). */
  int32_t (*int_list_arg)(mx_lowering_context* cx, const char* name, const int64_t** values, size_t* count);

  /* ---- emission: every node is placed in the node's module */
  /** Emits one ONNX node. `domain` "" (or NULL) is the default ONNX domain,
   *  the only one this host version accepts (another answers
   *  MX_ERR_UNSUPPORTED). `inputs` are value names ("" = an omitted
   *  optional input): the program's tensors (`tensor`), constants and
   *  earlier outputs. The host names the node in PyTorch's scoped style
   *  and its outputs: `outputs[k]` receives output k's name (lent). */
  int32_t (*emit)(mx_lowering_context* cx, const char* op_type, const char* domain, const char* const* inputs,
                  size_t input_count, const mx_lowering_attribute* attributes, size_t attribute_count,
                  size_t output_count, const char** outputs);
  /** A constant tensor of ONNX type `dtype` and shape `dims` (rank 0 = a
   *  scalar) from `size` bytes, little-endian, row-major (size must equal
   *  the element count times the element size; strings are not supported).
   *  `*onnx_name` receives its value name (lent). */
  int32_t (*constant)(mx_lowering_context* cx, int32_t dtype, const int64_t* dims, size_t rank,
                      const void* data, size_t size, const char** onnx_name);

  /* ---- the node's outputs */
  /** How many outputs the node has. */
  int32_t (*output_count)(mx_lowering_context* cx, size_t* count);
  /** The type and rank the program gives output k (a tensor output). */
  int32_t (*output_dtype)(mx_lowering_context* cx, size_t k, int32_t* dtype);
  int32_t (*output_rank)(mx_lowering_context* cx, size_t k, int64_t* rank);
  /** Output k of the node is the ONNX value `onnx_name`. Every tensor
   *  output the program reads must be bound before the callback returns. */
  int32_t (*bind_output)(mx_lowering_context* cx, size_t k, const char* onnx_name);

  /* ---- errors */
  /** Records `message` (copied) as the reason the lowering fails and returns
   *  `code`: `return api->fail(cx, MX_ERR_UNSUPPORTED, "alpha must be > 0");` */
  int32_t (*fail)(mx_lowering_context* cx, int32_t code, const char* message);

  /* ---- added in lowering ABI 1.1 (check MX_LOWERING_API_HAS first) */
  /** A SymInt or int argument as the ONNX name of a 0-d int64 tensor, static
   *  or computed from the program's dynamic dims (int_arg refuses a dynamic
   *  one): `n` of `mylib::scale_by_len(Tensor x, SymInt n)`. */
  int32_t (*sym_int_arg)(mx_lowering_context* cx, const char* name, const char** onnx_name);
  /** An int list argument whose elements may be SymInts (`SymInt[] reps`), as
   *  the ONNX name of a 1-D int64 tensor. */
  int32_t (*int_list_tensor)(mx_lowering_context* cx, const char* name, const char** onnx_name);
  /** A Tensor[] or Tensor?[] argument: `*count` ONNX names in `*onnx_names`
   *  (lent), NULL for a None element. */
  int32_t (*tensor_list_arg)(mx_lowering_context* cx, const char* name, const char* const** onnx_names,
                             size_t* count);
  /** A string argument (lent). */
  int32_t (*string_arg)(mx_lowering_context* cx, const char* name, const char** value);
  /** Output k is a Tensor[]: `*count` is its number of tensors. */
  int32_t (*output_list_size)(mx_lowering_context* cx, size_t k, size_t* count);
  /** Binds Tensor[] output k to `count` values the host handed out for this
   *  node (count must equal output_list_size). */
  int32_t (*bind_output_list)(mx_lowering_context* cx, size_t k, const char* const* onnx_names, size_t count);

  /* Later minors append host functions here; check MX_LOWERING_API_HAS. */
} mx_lowering_api;

/* 1 if the host's table contains `member`. */
#define MX_LOWERING_API_HAS(api, member) \
  ((api)->struct_size >= offsetof(mx_lowering_api, member) + sizeof(((mx_lowering_api*)0)->member))

/** Lowers one node. Returns 0 after binding the node's outputs, or an
 *  mx_code (see "Errors" above). `user_data` is the op's. */
typedef int32_t (*mx_lowering_fn)(const mx_lowering_api* api, mx_lowering_context* cx, void* user_data);

typedef struct mx_lowering_op {
  /** The target as the program names it, without "torch.ops.":
   *  "mylib.scaled_add.default" (namespace.op.overload; a name the host or
   *  another plugin already lowers is an error naming both). */
  const char* target;
  mx_lowering_fn lower;
  void* user_data;
} mx_lowering_op;

typedef struct mx_lowering_descriptor {
  /* Read first, before anything else in this struct. */
  uint32_t abi_major;      /* MX_LOWERING_ABI_MAJOR */
  uint32_t abi_minor;      /* MX_LOWERING_ABI_MINOR */
  uint32_t struct_size;    /* sizeof(mx_lowering_descriptor) as compiled */
  uint32_t op_size;        /* sizeof(mx_lowering_op): the stride of `ops` */
  const char* name;        /* unique, [a-z0-9_-]+, e.g. "mylib" */
  const char* version;     /* the plugin's own version, "1.0.0"  */
  const char* description; /* one line                          */
  const mx_lowering_op* ops;
  size_t op_count;
} mx_lowering_descriptor;

typedef const mx_lowering_descriptor* (*mx_lowering_entry_fn)(void);

#ifdef __cplusplus
#define MX_LOWERING_EXTERN_C extern "C"
#else
#define MX_LOWERING_EXTERN_C
#endif
/* Declare the entry point:
 *   MX_LOWERING_ENTRY { static const mx_lowering_descriptor d = {...}; return &d; } */
#define MX_LOWERING_ENTRY \
  MX_LOWERING_EXTERN_C MX_PLUGIN_EXPORT const mx_lowering_descriptor* modelexport_lowering_entry(void)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODELEXPORT_LOWERING_PLUGIN_H */
