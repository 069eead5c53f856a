/* A lowering plugin that needs lowering ABI 1.1: the ops of
 * tests/fixtures/custom_op/list_ops*.pt2 take a SymInt[] (mylib::tile), a
 * SymInt (mylib::scale_by_len), a Tensor[] and a str and return a Tensor[]
 * (mylib::sum_diff), each computed from the program's dynamic batch. */
#include <string.h>

#include "modelexport/lowering_plugin.h"
#include "modelexport/modelexport.h"

/* A host of lowering ABI 1.0 has none of the functions these ops need. */
static int32_t needs_abi_1_1(const mx_lowering_api* api, mx_lowering_context* cx) {
  if (MX_LOWERING_API_HAS(api, bind_output_list)) return 0;
  return api->fail(cx, MX_ERR_UNSUPPORTED, "this plugin needs a host of lowering ABI 1.1");
}

static int32_t lower_tile(const mx_lowering_api* api, mx_lowering_context* cx, void* user_data) {
  const char *in[2], *out;
  int32_t code;
  (void)user_data;
  if ((code = needs_abi_1_1(api, cx))) return code;
  if ((code = api->tensor(cx, "x", &in[0])) || (code = api->int_list_tensor(cx, "reps", &in[1]))) return code;
  if ((code = api->emit(cx, "Tile", "", in, 2, NULL, 0, 1, &out))) return code;
  return api->bind_output(cx, 0, out);
}

static int32_t lower_scale_by_len(const mx_lowering_api* api, mx_lowering_context* cx, void* user_data) {
  const char *x, *n, *n_cast, *out, *in[2];
  int32_t code, dtype;
  mx_lowering_attribute to;
  (void)user_data;
  if ((code = needs_abi_1_1(api, cx))) return code;
  if ((code = api->tensor(cx, "x", &x)) || (code = api->tensor_dtype(cx, "x", &dtype)) ||
      (code = api->sym_int_arg(cx, "n", &n)))
    return code;
  memset(&to, 0, sizeof to);
  to.name = "to";
  to.type = MX_LOWERING_ATTR_INT;
  to.i = dtype;
  if ((code = api->emit(cx, "Cast", "", &n, 1, &to, 1, 1, &n_cast))) return code;
  in[0] = x;
  in[1] = n_cast;
  if ((code = api->emit(cx, "Mul", "", in, 2, NULL, 0, 1, &out))) return code;
  return api->bind_output(cx, 0, out);
}

static int32_t lower_sum_diff(const mx_lowering_api* api, mx_lowering_context* cx, void* user_data) {
  const char* const* xs;
  const char *mode, *results[2];
  size_t count, outputs;
  int32_t code;
  (void)user_data;
  if ((code = needs_abi_1_1(api, cx))) return code;
  if ((code = api->tensor_list_arg(cx, "xs", &xs, &count)) || (code = api->string_arg(cx, "mode", &mode)))
    return code;
  if (count != 2 || !xs[0] || !xs[1]) return api->fail(cx, MX_ERR_UNSUPPORTED, "sum_diff: two tensors");
  if (strcmp(mode, "plain") != 0) return api->fail(cx, MX_ERR_UNSUPPORTED, "sum_diff: mode 'plain' only");
  if ((code = api->output_list_size(cx, 0, &outputs))) return code;
  if (outputs != 2) return api->fail(cx, MX_ERR_UNSUPPORTED, "sum_diff: a list of two outputs");
  if ((code = api->emit(cx, "Add", "", xs, 2, NULL, 0, 1, &results[0])) ||
      (code = api->emit(cx, "Sub", "", xs, 2, NULL, 0, 1, &results[1])))
    return code;
#ifdef LIST_OPS_BIND_ONE /* the misuse test: one value for a list of two */
  return api->bind_output_list(cx, 0, results, 1);
#else
  return api->bind_output_list(cx, 0, results, 2);
#endif
}

static const mx_lowering_op kOps[] = {
    {"mylib.tile.default", lower_tile, NULL},
    {"mylib.scale_by_len.default", lower_scale_by_len, NULL},
    {"mylib.sum_diff.default", lower_sum_diff, NULL},
};

MX_LOWERING_ENTRY {
  static const mx_lowering_descriptor d = {MX_LOWERING_ABI_MAJOR,
                                           1,
                                           sizeof(mx_lowering_descriptor),
                                           sizeof(mx_lowering_op),
                                           "list-ops",
                                           "1.0.0",
                                           "SymInt, SymInt[], Tensor[] and str arguments (lowering ABI 1.1)",
                                           kOps,
                                           sizeof kOps / sizeof kOps[0]};
  return &d;
}
